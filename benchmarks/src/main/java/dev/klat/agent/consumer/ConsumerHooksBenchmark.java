package dev.klat.agent.consumer;

import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agentcore.clock.TimeSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The consumer hooks of kafka-clients 3.5 and later, called directly as the woven advice calls
 * them, without Kafka around them; reported per record:
 *
 * <ul>
 *   <li>{@link #pollWithoutHooks()}: one poll of 500 records built the way {@code
 *       CompletedFetch.parseRecord} builds them ({@code ConsumerRecord}, empty {@code
 *       RecordHeaders}, a 100-byte value), fresh for every poll so that they are not all in the
 *       CPU's cache, and nothing else: the baseline;
 *   <li>{@link #pollWithHooks()}: the same poll with every consumer hook: the fetch stamps, {@code
 *       onRecordParsed} per record, the list handed out and the poll's exit with its histograms;
 *       its excess over the baseline is the hooks' cost per record;
 *   <li>{@link #pollWithOneFlaggedRecord()}: the same poll with its last record 5 s old, above the
 *       tail threshold and admitted (the cap, 100,000 a second, is above the polls a second): 500
 *       times its excess over {@link #pollWithHooks()} is what one flagged record costs, its tail
 *       span built and offered to the export queue; lost in the big poll's noise, hence
 *   <li>{@link #smallPoll()} and {@link #smallPollWithOneFlaggedRecord()}: polls of 10 records, the
 *       second with its last one flagged, reported per poll, from 32 consumers in turn so that each
 *       one's fair cap keeps every flagged record: the difference is a kept flagged record's cost.
 * </ul>
 *
 * <p>{@link #tail}: {@code off} is {@code klat.tail.enabled=false}; {@code on} is tail capture with
 * a fixed threshold of 1 s, so that every record is compared with it and none of {@link
 * #pollWithHooks()}'s records is above it; {@code auto} is the default, whose threshold flags
 * nothing until its window holds a minute's records (a {@code CreateTime} record then costs what it
 * costs with {@code on}), and whose window of a {@code LogAppendTime} topic records every {@code P
 * - L} from the start. {@link #timestamps}: the topic's {@code message.timestamp.type}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ConsumerHooksBenchmark {

  private static final int RECORDS_PER_POLL = 500;
  // A producer at 250,000 records per second spreads 500 records over 2 ms of timestamps.
  private static final int TIMESTAMP_SPREAD_MILLIS = 2;

  // Old enough for any threshold below it.
  private static final long FLAGGED_AGE_MILLIS = 5_000;

  @Param({"off", "on", "auto"})
  public String tail;

  @Param({"CreateTime", "LogAppendTime"})
  public String timestamps;

  private TimestampType timestampType;

  // The small polls: 10 records, from 32 consumers in turn, reported per poll.
  private static final int SMALL_POLL_RECORDS = 10;
  private static final int SMALL_POLL_CONSUMERS = 32;

  private final TestStateHolder consumer = new TestStateHolder();
  private final TestStateHolder[] smallPollConsumers = new TestStateHolder[SMALL_POLL_CONSUMERS];
  private int next;
  private final TopicPartition partition = new TopicPartition("bench", 0);
  private long offset;

  @Setup
  public void setUp() {
    for (int i = 0; i < SMALL_POLL_CONSUMERS; i++) {
      smallPollConsumers[i] = new TestStateHolder();
    }
    timestampType =
        "LogAppendTime".equals(timestamps)
            ? TimestampType.LOG_APPEND_TIME
            : TimestampType.CREATE_TIME;
    Map<String, String> settings = new HashMap<>();
    settings.put("klat.tail.enabled", Boolean.toString(!"off".equals(tail)));
    settings.put("klat.tail.consumer-threshold", "on".equals(tail) ? "1s" : "auto");
    settings.put("klat.tail.max-per-second", "100000");
    TestRuntime.install(TimeSource.SYSTEM, settings);
  }

  @TearDown
  public void tearDown() {
    TestRuntime.uninstall();
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS_PER_POLL)
  public List<ConsumerRecord<byte[], byte[]>> pollWithoutHooks() {
    return poll(false, false);
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS_PER_POLL)
  public List<ConsumerRecord<byte[], byte[]>> pollWithHooks() {
    return poll(true, false);
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS_PER_POLL)
  public List<ConsumerRecord<byte[], byte[]>> pollWithOneFlaggedRecord() {
    return poll(consumer, RECORDS_PER_POLL, true, true);
  }

  @Benchmark
  public List<ConsumerRecord<byte[], byte[]>> smallPoll() {
    return poll(nextConsumer(), SMALL_POLL_RECORDS, true, false);
  }

  @Benchmark
  public List<ConsumerRecord<byte[], byte[]>> smallPollWithOneFlaggedRecord() {
    return poll(nextConsumer(), SMALL_POLL_RECORDS, true, true);
  }

  // Consumers in turn: each one's fair cap then admits every flagged record of the small polls.
  private TestStateHolder nextConsumer() {
    next = (next + 1) % SMALL_POLL_CONSUMERS;
    return smallPollConsumers[next];
  }

  private List<ConsumerRecord<byte[], byte[]>> poll(boolean hooks, boolean lastFlagged) {
    return poll(consumer, RECORDS_PER_POLL, hooks, lastFlagged);
  }

  private List<ConsumerRecord<byte[], byte[]>> poll(
      TestStateHolder consumer, int count, boolean hooks, boolean lastFlagged) {
    TestStateHolder request = new TestStateHolder();
    TestStateHolder completedFetch = new TestStateHolder();
    if (hooks) {
      ConsumerHooks.onFetchRequestCreated(request);
      ConsumerHooks.onFetchResponse(request);
      ConsumerHooks.onCompletedFetchCreated(completedFetch);
      ConsumerHooks.onFetchResponseDone();
      ConsumerHooks.onPollEnter(consumer);
    }
    long nowMillis = System.currentTimeMillis();
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ConsumerRecord<byte[], byte[]> record =
          new ConsumerRecord<>(
              "bench",
              0,
              offset++,
              lastFlagged && i == count - 1
                  ? nowMillis - FLAGGED_AGE_MILLIS
                  : nowMillis
                      - TIMESTAMP_SPREAD_MILLIS
                      + (long) i * TIMESTAMP_SPREAD_MILLIS / count,
              timestampType,
              0,
              100,
              null,
              new byte[100],
              new RecordHeaders(),
              Optional.empty());
      if (hooks) {
        ConsumerHooks.onRecordParsed(record, completedFetch);
      }
      records.add(record);
    }
    if (hooks) {
      ConsumerHooks.onRecordsReturned(records, completedFetch, partition, null);
      ConsumerHooks.onPollReturn(null, consumer);
    }
    return records;
  }
}
