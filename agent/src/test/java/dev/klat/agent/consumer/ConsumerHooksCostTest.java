package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agentcore.clock.TimeSource;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Not a test: a diagnostic of the hooks' cost per record in-process, beside {@code
 * ConsumerHooksBenchmark} (JMH), which gives the figure in {@code docs/agent-overhead.md}. Run with
 * {@code ./mvnw -pl agent test -Dtest=ConsumerHooksCostTest -Dklat.cost=true}.
 *
 * <p>Like the classic consumer at its defaults: each poll builds 500 records without headers, as
 * Kafka does ({@code ConsumerRecord}, {@code RecordHeaders} and a 100-byte value each, so that the
 * records the hooks read are not all in the CPU's cache), in {@code -Dklat.cost.lists} lists
 * (default 1) of one partition each, with {@code CreateTime} timestamps spread over {@code
 * -Dklat.cost.spread.ms} milliseconds (default 2, a producer at 250,000 records per second), of
 * {@code -Dklat.cost.timestamps} type (default {@code CreateTime}). Four variants alternate, 20,000
 * polls each, in 8 rounds: no hooks; the hooks with the records read at {@code poll()} exit
 * (kafka-clients up to 3.4, where {@code parseRecord} is not hooked); with each record noted as it
 * is built ({@code onRecordParsed}, 3.5 and later); and the same with tail capture on at a fixed
 * threshold of 1 s, which every record is compared with and none is above (the others run with
 * {@code klat.tail.enabled=false}). Reported: thread CPU per record of the whole poll (building the
 * records included) and its excess over no hooks, and the bytes the hooks allocate. Thread CPU, not
 * wall time, so that a machine busy with other work still gives comparable figures.
 */
@EnabledIfSystemProperty(named = "klat.cost", matches = "true")
class ConsumerHooksCostTest {

  private static final int RECORDS_PER_POLL = 500;
  private static final int POLLS = 20_000;
  private static final String[] VARIANTS = {
    "no hooks", "read at poll exit", "noted when parsed", "noted, tail on"
  };
  private static final int TAIL_ON = 3;

  @Test
  void costPerRecord() {
    AgentRuntime tailOn =
        TestRuntime.install(
            TimeSource.SYSTEM,
            Map.of("klat.tail.enabled", "true", "klat.tail.consumer-threshold", "1s"));
    AgentRuntime tailOff =
        TestRuntime.install(TimeSource.SYSTEM, Map.of("klat.tail.enabled", "false"));
    try {
      int lists = Integer.getInteger("klat.cost.lists", 1);
      int spreadMillis = Integer.getInteger("klat.cost.spread.ms", 2);
      TimestampType type =
          "LogAppendTime".equals(System.getProperty("klat.cost.timestamps"))
              ? TimestampType.LOG_APPEND_TIME
              : TimestampType.CREATE_TIME;
      Poller poller = new Poller(lists, RECORDS_PER_POLL / lists, spreadMillis, type);
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long thread = Thread.currentThread().getId();
      for (int round = 0; round < 8; round++) {
        double[] nanosPerRecord = new double[VARIANTS.length];
        double[] bytesPerRecord = new double[VARIANTS.length];
        for (int v = 0; v < VARIANTS.length; v++) {
          int variant = round % 2 == 0 ? v : VARIANTS.length - 1 - v;
          TestRuntime.reinstall(variant == TAIL_ON ? tailOn : tailOff);
          long bytes = threads.getThreadAllocatedBytes(thread);
          long start = threads.getCurrentThreadCpuTime();
          for (int p = 0; p < POLLS; p++) {
            poller.poll(variant);
          }
          long records = (long) POLLS * poller.perList * lists;
          nanosPerRecord[variant] = (double) (threads.getCurrentThreadCpuTime() - start) / records;
          bytesPerRecord[variant] =
              (double) (threads.getThreadAllocatedBytes(thread) - bytes) / records;
        }
        for (int v = 0; v < VARIANTS.length; v++) {
          System.out.printf(
              Locale.ROOT,
              "round %d %-18s %6.1f ns/record (%+5.1f ns), %6.1f bytes/record (%+.2f)%n",
              round + 1,
              VARIANTS[v],
              nanosPerRecord[v],
              nanosPerRecord[v] - nanosPerRecord[0],
              bytesPerRecord[v],
              bytesPerRecord[v] - bytesPerRecord[0]);
        }
      }
    } finally {
      TestRuntime.uninstall();
    }
  }

  /**
   * One consumer's polls, with or without the hooks, as the woven kafka-clients would call them.
   */
  private static final class Poller {
    final int lists;
    final int perList;
    final int spreadMillis;
    final TimestampType type;
    final TopicPartition[] partitions;
    final TestStateHolder consumer = new TestStateHolder();
    // A consumer of its own: its state was made under the runtime with tail capture on.
    final TestStateHolder tailConsumer = new TestStateHolder();
    long offset;

    Poller(int lists, int perList, int spreadMillis, TimestampType type) {
      this.lists = lists;
      this.perList = perList;
      this.spreadMillis = spreadMillis;
      this.type = type;
      this.partitions = new TopicPartition[lists];
      for (int l = 0; l < lists; l++) {
        partitions[l] = new TopicPartition("bench", l);
      }
    }

    void poll(int variant) {
      boolean hooks = variant > 0;
      boolean parsed = variant >= 2;
      TestStateHolder consumer = variant == TAIL_ON ? tailConsumer : this.consumer;
      TestStateHolder request = new TestStateHolder();
      TestStateHolder[] fetches = new TestStateHolder[lists];
      if (hooks) {
        ConsumerHooks.onFetchRequestCreated(request);
        ConsumerHooks.onFetchResponse(request);
      }
      for (int l = 0; l < lists; l++) {
        fetches[l] = new TestStateHolder();
        if (hooks) {
          ConsumerHooks.onCompletedFetchCreated(fetches[l]);
        }
      }
      if (hooks) {
        ConsumerHooks.onFetchResponseDone();
        ConsumerHooks.onPollEnter(consumer);
      }
      long now = System.currentTimeMillis();
      for (int l = 0; l < lists; l++) {
        List<ConsumerRecord<byte[], byte[]>> list = new ArrayList<>();
        for (int i = 0; i < perList; i++) {
          ConsumerRecord<byte[], byte[]> record =
              new ConsumerRecord<>(
                  "bench",
                  l,
                  offset++,
                  now - spreadMillis + (long) i * spreadMillis / perList,
                  type,
                  0,
                  100,
                  null,
                  new byte[100],
                  new RecordHeaders(),
                  Optional.empty());
          if (parsed) {
            ConsumerHooks.onRecordParsed(record, fetches[l]);
          }
          list.add(record);
        }
        if (hooks) {
          ConsumerHooks.onRecordsFetched(fetches[l], partitions[l], null, list);
        }
      }
      if (hooks) {
        ConsumerHooks.onPollExit(consumer, null);
      }
    }
  }
}
