package dev.klat.agent.producer;

import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: measures what the producer hooks add per record, in-process and warm, without Kafka
 * around them: per record {@code send()}'s three hooks, the metadata wait hook and the append to a
 * batch, per batch of 500 the drain and the completion with its histogram recording (sampling off,
 * as at the default rate almost every record is). Prints wall and thread CPU nanoseconds per record
 * for five rounds of 10,000,000 records. Run with {@code ./mvnw -pl agent test
 * -Dtest=ProducerHooksCostTest -Dklat.cost=true}.
 */
@EnabledIfSystemProperty(named = "klat.cost", matches = "true")
class ProducerHooksCostTest {

  private static final int BATCH_RECORDS = 500;

  // -Dklat.cost.metadataHook=false leaves out the metadata wait hook, to compare.
  private static final boolean METADATA_HOOK =
      !"false".equals(System.getProperty("klat.cost.metadataHook"));

  @Test
  void costPerRecord() {
    TestRuntime.install();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try {
      TestStateHolder producer = new TestStateHolder();
      ProducerRecord<String, String> record = new ProducerRecord<>("bench", "k", "v");
      Object future = new Object();
      for (int round = 0; round < 5; round++) {
        long startNanos = System.nanoTime();
        long startCpuNanos = threads.getCurrentThreadCpuTime();
        int batches = 20_000;
        for (int b = 0; b < batches; b++) {
          TestStateHolder batch = new TestStateHolder();
          for (int i = 0; i < BATCH_RECORDS; i++) {
            ProducerHooks.onSend(producer, record);
            if (METADATA_HOOK) {
              // What waitOnMetadata's ClusterAndWaitTime calls on every send: its metadata cached.
              ProducerHooks.onMetadataWaited(0);
            }
            ProducerHooks.onAppended(future, batch);
            ProducerHooks.onSendReturn(future);
          }
          ProducerHooks.onDrained(batch);
          ProducerHooks.onCompletionStart(batch, 0L, -1L, null, BATCH_RECORDS);
          ProducerHooks.onCompletionEnd(batch);
        }
        long records = (long) batches * BATCH_RECORDS;
        System.out.printf(
            "producer hooks per record: %.1f ns wall, %.1f ns thread CPU%n",
            (double) (System.nanoTime() - startNanos) / records,
            (double) (threads.getCurrentThreadCpuTime() - startCpuNanos) / records);
      }
    } finally {
      TestRuntime.uninstall();
    }
  }
}
