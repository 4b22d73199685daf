package dev.klat.agent.consumer;

import dev.klat.agent.TestRuntime;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: measures the hooks' cost per record in-process, for {@code docs/benchmarks.md}. Run
 * with {@code ./mvnw -pl agent test -Dtest=ConsumerHooksCostTest -Dklat.cost=true}.
 *
 * <p>Like the classic consumer at its defaults: each poll returns 500 records without headers, in
 * {@code -Dklat.cost.lists} lists (default 1) of one partition each, freshly allocated per poll as
 * Kafka does (so the hooks meet records that are not all in the cache, as they would), with {@code
 * CreateTime} timestamps spread over {@code -Dklat.cost.spread.ms} milliseconds (default 2, a
 * producer at 250,000 records per second). Only the hooks are timed (thread CPU time around them,
 * less the cost of reading it), and the bytes they allocate are counted; 20,000 polls, five rounds.
 */
@EnabledIfSystemProperty(named = "klat.cost", matches = "true")
class ConsumerHooksCostTest {

  private static final int RECORDS_PER_POLL = 500;

  @Test
  void costPerRecord() {
    TestRuntime.install();
    try {
      int lists = Integer.getInteger("klat.cost.lists", 1);
      int perList = RECORDS_PER_POLL / lists;
      int spreadMillis = Integer.getInteger("klat.cost.spread.ms", 2);
      TopicPartition[] partitions = new TopicPartition[lists];
      for (int l = 0; l < lists; l++) {
        partitions[l] = new TopicPartition("bench", l);
      }
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long thread = Thread.currentThread().getId();
      ConsumerHooksTest.Holder consumer = new ConsumerHooksTest.Holder();
      ConsumerHooksTest.Holder[] fetches = new ConsumerHooksTest.Holder[lists];
      List<List<ConsumerRecord<byte[], byte[]>>> polled = new ArrayList<>();
      long offset = 0;
      for (int round = 0; round < 5; round++) {
        int polls = 20_000;
        long hookNanos = 0;
        long hookBytes = 0;
        for (int p = 0; p < polls; p++) {
          // What Kafka does before the hooks see anything: the response, then the records.
          long now = System.currentTimeMillis();
          polled.clear();
          for (int l = 0; l < lists; l++) {
            List<ConsumerRecord<byte[], byte[]>> list = new ArrayList<>(perList);
            for (int i = 0; i < perList; i++) {
              list.add(
                  new ConsumerRecord<>(
                      "bench",
                      l,
                      offset++,
                      now - spreadMillis + (long) i * spreadMillis / perList,
                      TimestampType.CREATE_TIME,
                      0,
                      100,
                      null,
                      new byte[100],
                      new RecordHeaders(),
                      Optional.empty()));
            }
            polled.add(list);
          }
          long bytes = threads.getThreadAllocatedBytes(thread);
          long start = threads.getCurrentThreadCpuTime();
          ConsumerHooksTest.Holder req = new ConsumerHooksTest.Holder();
          ConsumerHooks.onFetchRequestCreated(req);
          ConsumerHooks.onFetchResponse(req);
          for (int l = 0; l < lists; l++) {
            fetches[l] = new ConsumerHooksTest.Holder();
            ConsumerHooks.onCompletedFetchCreated(fetches[l]);
          }
          ConsumerHooks.onFetchResponseDone();
          ConsumerHooks.onPollEnter(consumer);
          for (int l = 0; l < lists; l++) {
            ConsumerHooks.onRecordsFetched(fetches[l], partitions[l], null, polled.get(l));
          }
          ConsumerHooks.onPollExit(consumer, null);
          hookNanos += threads.getCurrentThreadCpuTime() - start;
          hookBytes += threads.getThreadAllocatedBytes(thread) - bytes;
        }
        // What reading the clocks around the hooks costs, to subtract.
        long calibration = threads.getCurrentThreadCpuTime();
        for (int p = 0; p < polls; p++) {
          threads.getThreadAllocatedBytes(thread);
          threads.getCurrentThreadCpuTime();
        }
        hookNanos -= threads.getCurrentThreadCpuTime() - calibration;
        long records = (long) polls * perList * lists;
        System.out.printf(
            java.util.Locale.ROOT,
            "hooks cost per record: %.1f ns, %.2f bytes allocated (%d lists per poll)%n",
            (double) hookNanos / records,
            (double) hookBytes / records,
            lists);
      }
    } finally {
      TestRuntime.uninstall();
    }
  }
}
