package dev.klat.agent.consumer;

import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.link.InputLink;
import dev.klat.agent.link.IterationCursor;
import dev.klat.agent.link.ThreadLinks;
import dev.klat.agentcore.clock.TimeSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The per-record cost of the link's iteration hook (section 9 of the latency model) on unsampled
 * records: a real {@code ConsumerRecords} of 500 records over 5 partitions, iterated as a poll loop
 * does, with {@code ConsumerHooks.onRecordTaken} called after each record as the woven {@code
 * makeNext()} calls it (the iterator stood in for by a {@code StateHolder}); reported per record:
 *
 * <ul>
 *   <li>{@link #iterate()}: the iteration alone, the baseline;
 *   <li>{@link #iterateHookedNoSampledRecord()}: with the hook, the thread's latest poll returned
 *       no sampled record: the iterator has no cursor (a type check and a field read);
 *   <li>{@link #iterateHookedOneSampledRecord()}: with the hook, one of the 500 records sampled
 *       (expected last, so that every other record pays the comparison and the store).
 * </ul>
 *
 * <p>Run with {@code -prof gc}: none of them allocates per record beyond the iterator. On a busy
 * machine {@link LinkRounds} runs the same loops in interleaved rounds timed by CPU time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LinkBenchmark {

  private static final int PARTITIONS = 5;
  private static final int RECORDS_PER_PARTITION = 100;
  private static final int RECORDS = PARTITIONS * RECORDS_PER_PARTITION;

  private ConsumerRecords<String, String> records;
  private final TestStateHolder iteratorWithoutCursor = new TestStateHolder();
  private final TestStateHolder iteratorWithCursor = new TestStateHolder();
  private Object sampled;
  private InputLink sampledLink;

  @Setup
  public void setUp() {
    TestRuntime.install(TimeSource.SYSTEM);
    Map<TopicPartition, List<ConsumerRecord<String, String>>> map = new LinkedHashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      List<ConsumerRecord<String, String>> list = new ArrayList<>();
      for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
        list.add(new ConsumerRecord<>("in", p, i, "k", "v"));
      }
      map.put(new TopicPartition("in", p), list);
    }
    records = new ConsumerRecords<>(map);
    List<ConsumerRecord<String, String>> last = map.get(new TopicPartition("in", PARTITIONS - 1));
    sampled = last.get(RECORDS_PER_PARTITION - 1);
    sampledLink = new InputLink("in", PARTITIONS - 1, RECORDS_PER_PARTITION - 1, "g", 1L, 2L, 3L);
  }

  @TearDown
  public void tearDown() {
    TestRuntime.uninstall();
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void iterate(Blackhole blackhole) {
    for (Iterator<ConsumerRecord<String, String>> it = records.iterator(); it.hasNext(); ) {
      blackhole.consume(it.next());
    }
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void iterateHookedNoSampledRecord(Blackhole blackhole) {
    TestStateHolder hooked = iteratorWithoutCursor;
    for (Iterator<ConsumerRecord<String, String>> it = records.iterator(); it.hasNext(); ) {
      ConsumerRecord<String, String> record = it.next();
      ConsumerHooks.onRecordTaken(record, hooked);
      blackhole.consume(record);
    }
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void iterateHookedOneSampledRecord(Blackhole blackhole) {
    // A new cursor per iteration, as the iterator's creation hook makes one.
    TestStateHolder hooked = iteratorWithCursor;
    ThreadLinks links = ThreadLinks.current();
    hooked.klat$state(
        new IterationCursor(links, new Object[] {sampled}, new InputLink[] {sampledLink}, 1));
    for (Iterator<ConsumerRecord<String, String>> it = records.iterator(); it.hasNext(); ) {
      ConsumerRecord<String, String> record = it.next();
      ConsumerHooks.onRecordTaken(record, hooked);
      blackhole.consume(record);
    }
    // As the send that follows would: the taken record is consumed.
    links.forSend();
    links.pollStarted();
  }
}
