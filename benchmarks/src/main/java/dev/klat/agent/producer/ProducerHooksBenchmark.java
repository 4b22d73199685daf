package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agentcore.clock.TimeSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The producer hooks, called directly as the woven advice calls them, without Kafka around them
 * (the same calls as {@code ProducerHooksCostTest} in the agent, under JMH):
 *
 * <ul>
 *   <li>{@link #send()}: per record, {@code send()}'s two hooks and the append to a batch; a new
 *       batch every 500 records, whose send times go back to the pool as a completion gives them;
 *   <li>{@link #sendEntry()} and {@link #append()}: the two halves of {@link #send()}, the hooks at
 *       {@code send()}'s entry (S, the sampling decision) and the append with {@code send()}'s
 *       return;
 *   <li>{@link #drain()}: the drain hook, once per batch, on the network thread;
 *   <li>{@link #ackPerRecord()}: the completion (ack) hook of a batch of 500 records, with its two
 *       histogram recordings, reported per record;
 *   <li>{@link #sampledRecordAck()}: the extra work of a sampled record's acknowledgement: its span
 *       built and offered to the exporter's queue (which is full and drops it, as it would be at
 *       this rate).
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProducerHooksBenchmark {

  private static final int BATCH_RECORDS = 500;

  /** "default": probability 0.01, at most 100 per second; "every-record": 1 and no cap. */
  @Param({"default", "every-record"})
  public String sampling;

  private final TestStateHolder producer = new TestStateHolder();
  private final ProducerRecord<String, String> record = new ProducerRecord<>("bench", "k", "v");
  private final Object future = new Object();
  private final TopicPartition partition = new TopicPartition("bench", 0);
  private final TestStateHolder sendBatch = new TestStateHolder();
  private int sendBatchRecords;
  private final TestStateHolder fullBatch = new TestStateHolder();
  private RecordTracker tracker;
  private AgentRuntime runtime;
  private SendContext sendContext;

  @Setup
  public void setUp() {
    boolean every = sampling.equals("every-record");
    // Read-only headers, as Kafka leaves them once a record was sent: a sampled record is stamped
    // on a copy, and the next sends still meet a record without a traceparent, as they would.
    ((RecordHeaders) record.headers()).setReadOnly();
    AgentRuntime runtime =
        TestRuntime.install(every ? 1.0 : 0.01, every ? 1e12 : 100, TimeSource.SYSTEM);
    // The first send creates the producer's state and the topic's instruments.
    ProducerHooks.onSend(producer, record);
    long now = System.nanoTime();
    fullBatch.klat$state(CompletingBatch.filled(runtime, now));
    ProducerState state = new ProducerState(runtime, "bench-client", null, null, null);
    tracker = new RecordTracker(state, now, record, 1L, 2L, 3L, 0L);
    tracker.headersStamped = true;
    tracker.future =
        CompletableFuture.completedFuture(
            new RecordMetadata(partition, 42L, 0, 1_800_000_000_000L, 1, 100));
    this.runtime = runtime;
    sendContext = SendContext.current();
  }

  @TearDown
  public void tearDown() {
    TestRuntime.uninstall();
  }

  @Benchmark
  @SuppressWarnings("rawtypes")
  public ProducerRecord send() {
    ProducerRecord sent = sendEntry();
    append();
    return sent;
  }

  @Benchmark
  @SuppressWarnings("rawtypes")
  public ProducerRecord sendEntry() {
    return ProducerHooks.onSend(producer, record);
  }

  @Benchmark
  public void append() {
    // As after the send() entry of the record being appended (send() does it in its hook).
    sendContext.pending = true;
    ProducerHooks.onAppended(future, sendBatch);
    ProducerHooks.onSendReturn(future);
    if (++sendBatchRecords == BATCH_RECORDS) {
      sendBatchRecords = 0;
      ((BatchTiming) sendBatch.klat$state()).releaseSendTimes();
      sendBatch.klat$state(null);
    }
  }

  @Benchmark
  public void drain() {
    ProducerHooks.onDrained(fullBatch);
  }

  /**
   * A completion gives its batch's send times back to the pool, so each completion of {@link
   * #ackPerRecord} gets a full batch of its own.
   */
  @State(Scope.Thread)
  public static class CompletingBatch {
    final TestStateHolder batch = new TestStateHolder();

    @Setup(Level.Invocation)
    public void fill() {
      batch.klat$state(filled(AgentRuntime.get(), System.nanoTime()));
    }

    static BatchTiming filled(AgentRuntime runtime, long nowNanos) {
      BatchTiming timing = new BatchTiming();
      TopicInstruments instruments =
          new TopicInstruments("bench", "bench-client", runtime.metrics());
      for (int i = 0; i < BATCH_RECORDS; i++) {
        timing.append(instruments, nowNanos - 5_000_000L + i * 1000L);
      }
      timing.drained(nowNanos - 1_000_000L);
      return timing;
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH_RECORDS)
  public void ackPerRecord(CompletingBatch completing) {
    ProducerHooks.onCompletionStart(completing.batch, 0L, -1L, null, BATCH_RECORDS);
    ProducerHooks.onCompletionEnd(completing.batch);
  }

  @Benchmark
  public void sampledRecordAck() {
    runtime.export(ProducerSpans.acknowledged(runtime, tracker, null, null, System.nanoTime()));
  }
}
