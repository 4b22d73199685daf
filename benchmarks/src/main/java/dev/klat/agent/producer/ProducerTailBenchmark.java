package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.weave.States;
import dev.klat.agentcore.clock.TimeSource;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.internals.ProducerBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
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
 * Producer tail capture's cost, the hooks called directly as in {@code ProducerHooksBenchmark}:
 *
 * <ul>
 *   <li>{@link #ackPerRecord}: a batch of 500 records acknowledged (its two histograms, and with
 *       {@code tail=on} the per-batch comparison with the topic's threshold of 100 ms), per record.
 *       {@code slow=none}: every record 5 ms old, unflagged: what tail capture adds to every
 *       record. {@code slow=5%}: 25 records of each batch above the threshold, far more than the
 *       cap of 100 a second: the scan and each flagged record's fair-cap decision (the few kept
 *       have no span built here: their batch is not a kafka-clients one; {@link #tailSpan} is that
 *       cost);
 *   <li>{@link #tailSpan}: one kept flagged record's tail span, built from a real {@code
 *       ProducerBatch} and offered to the export queue's tail share (full, so dropped, as sampled
 *       spans are in {@code sampledRecordAck}).
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProducerTailBenchmark {

  private static final int BATCH_RECORDS = 500;
  private static final long MS = 1_000_000L;

  /** {@code klat.tail.enabled}, with a fixed producer threshold of 100 ms when on. */
  @Param({"off", "on"})
  public String tail;

  /** The share of each batch's records above the threshold. */
  @Param({"none", "5%"})
  public String slow;

  private AgentRuntime runtime;
  private TopicInstruments instruments;
  private ProducerBatch spanBatch;
  private BatchTiming spanTiming;

  @Setup
  public void setUp() {
    Map<String, String> settings = new HashMap<>();
    settings.put("klat.sampling.probability", "0");
    settings.put("klat.tail.enabled", Boolean.toString(tail.equals("on")));
    settings.put("klat.tail.producer-threshold", "100ms");
    runtime = TestRuntime.install(TimeSource.SYSTEM, settings);
    ProducerState state = new ProducerState(runtime, "bench-client", null, null, null);
    instruments =
        new TopicInstruments(
            "bench",
            "bench-client",
            runtime.metrics(),
            null,
            state,
            runtime.tailThresholds,
            state.tailAdmission);
    spanBatch = completedBatchWithOneTailRecord();
    spanTiming = (BatchTiming) States.get(spanBatch);
  }

  @TearDown
  public void tearDown() {
    TestRuntime.uninstall();
  }

  /** Each completion gets a full batch of its own, as in {@code ProducerHooksBenchmark}. */
  @State(Scope.Thread)
  public static class CompletingBatch {
    final TestStateHolder batch = new TestStateHolder();

    @Setup(Level.Invocation)
    public void fill(ProducerTailBenchmark bench) {
      long now = System.nanoTime();
      BatchTiming timing = new BatchTiming();
      boolean someSlow = bench.slow.equals("5%");
      for (int i = 0; i < BATCH_RECORDS; i++) {
        // Every 20th record 150 ms old when some are slow, the others 5 ms.
        long age = someSlow && i % 20 == 0 ? 150 * MS : 5 * MS - i * 1000L;
        timing.append(bench.instruments, now - age);
      }
      timing.drained(now - 1 * MS);
      batch.klat$state(timing);
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH_RECORDS)
  public void ackPerRecord(CompletingBatch completing) {
    ProducerHooks.onCompletionStart(completing.batch, 1_000L, -1L, null, BATCH_RECORDS);
    ProducerHooks.onCompletionEnd(completing.batch);
  }

  @Benchmark
  public SpanRecord tailSpan() {
    SpanRecord span = ProducerSpans.tailSpan(runtime, spanBatch, spanTiming, 0);
    runtime.exportTail(span);
    return span;
  }

  private ProducerBatch completedBatchWithOneTailRecord() {
    ProducerBatch batch =
        new ProducerBatch(
            new TopicPartition("bench", 0),
            MemoryRecords.builder(
                ByteBuffer.allocate(4096), Compression.NONE, TimestampType.CREATE_TIME, 0L),
            0L);
    long now = System.nanoTime();
    batch.tryAppend(1_800_000_000_000L, new byte[8], new byte[100], new Header[0], null, 0L);
    BatchTiming timing = ProducerHooks.timingOf(batch);
    timing.append(instruments, now - 150 * MS);
    timing.drained(now - 1 * MS);
    timing.ackNanos = now;
    timing.baseOffset = 1_000L;
    timing.completedRecordCount = 1;
    timing.tailThresholdNanos = 100 * MS;
    timing.addTail(0, now - 150 * MS);
    batch.complete(1_000L, -1L);
    return batch;
  }
}
