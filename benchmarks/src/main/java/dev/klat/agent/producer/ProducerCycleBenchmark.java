package dev.klat.agent.producer;

import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agentcore.clock.TimeSource;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A record's whole life in a busy producer, one thread, with and without klat's hooks: its bytes
 * copied into its batch, and, each time a batch fills, the oldest batch of those in flight read out
 * as a request would be and acknowledged. With 2,000 batches of 150 records of 100 bytes in flight
 * (the 32 MiB of a producer whose buffer is full, as in {@code ./klat bench}), a batch's send times
 * are long out of the caches when its acknowledgement reads them, as they are in a real producer
 * and never are in {@link ProducerHooksBenchmark}, whose batches stay in L1.
 *
 * <p>klat's cost per record is the difference between the two {@code hooks} settings.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProducerCycleBenchmark {

  private static final int RECORDS_PER_BATCH = 150;
  private static final int BATCHES_IN_FLIGHT = 2_000;
  private static final int VALUE_BYTES = 100;
  // A record's bytes in a batch: its value and about ten bytes of framing.
  private static final int RECORD_BYTES = 110;
  private static final int BATCH_BYTES = RECORDS_PER_BATCH * RECORD_BYTES;

  @Param({"false", "true"})
  public boolean hooks;

  private final TestStateHolder producer = new TestStateHolder();
  private final ProducerRecord<String, String> record = new ProducerRecord<>("bench", "k", "v");
  private final Object future = new Object();
  private final TestStateHolder[] batches = new TestStateHolder[BATCHES_IN_FLIGHT];
  private final byte[] buffers = new byte[BATCHES_IN_FLIGHT * BATCH_BYTES];
  private final byte[] value = new byte[VALUE_BYTES];
  private final byte[] request = new byte[BATCH_BYTES];
  private int batchIndex;
  private int recordInBatch;

  @Setup
  public void setUp() {
    ((RecordHeaders) record.headers()).setReadOnly();
    TestRuntime.install(0.01, 100, TimeSource.SYSTEM);
    for (int i = 0; i < BATCHES_IN_FLIGHT; i++) {
      batches[i] = new TestStateHolder();
    }
    // Every batch of the ring holds a full batch's send times, as in a producer's steady state.
    for (int i = 0; i < BATCHES_IN_FLIGHT * RECORDS_PER_BATCH; i++) {
      record();
    }
  }

  @TearDown
  public void tearDown() {
    TestRuntime.uninstall();
  }

  @Benchmark
  @SuppressWarnings("rawtypes")
  public ProducerRecord record() {
    ProducerRecord sent = record;
    TestStateHolder batch = batches[batchIndex];
    if (hooks) {
      sent = ProducerHooks.onSend(producer, record);
    }
    System.arraycopy(
        value, 0, buffers, batchIndex * BATCH_BYTES + recordInBatch * RECORD_BYTES, VALUE_BYTES);
    if (hooks) {
      ProducerHooks.onAppended(future, batch);
      ProducerHooks.onSendReturn(future);
    }
    if (++recordInBatch == RECORDS_PER_BATCH) {
      recordInBatch = 0;
      batchIndex = batchIndex + 1 == BATCHES_IN_FLIGHT ? 0 : batchIndex + 1;
      completeOldest(batches[batchIndex]);
    }
    return sent;
  }

  // The ring's next slot holds the oldest batch: sent, acknowledged, and its slot given to a new
  // batch.
  private void completeOldest(TestStateHolder oldest) {
    if (hooks) {
      ProducerHooks.onDrained(oldest);
    }
    System.arraycopy(buffers, batchIndex * BATCH_BYTES, request, 0, BATCH_BYTES);
    if (hooks) {
      ProducerHooks.onCompletionStart(oldest, 0L, -1L, null, RECORDS_PER_BATCH);
      ProducerHooks.onCompletionEnd(oldest);
    }
    oldest.klat$state(null);
  }
}
