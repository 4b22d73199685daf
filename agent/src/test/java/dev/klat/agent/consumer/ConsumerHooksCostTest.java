package dev.klat.agent.consumer;

import dev.klat.agent.TestRuntime;
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
 * Not a test: measures the hooks' cost per record in-process (500 records without headers per poll,
 * 20,000 polls, five rounds), for {@code docs/benchmarks.md}. Run with {@code ./mvnw -pl agent test
 * -Dtest=ConsumerHooksCostTest -Dklat.cost=true}.
 */
@EnabledIfSystemProperty(named = "klat.cost", matches = "true")
class ConsumerHooksCostTest {
  @Test
  void costPerRecord() {
    TestRuntime.install();
    try {
      List<ConsumerRecord<String, String>> list = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (int i = 0; i < 500; i++) {
        list.add(
            new ConsumerRecord<>(
                "bench",
                0,
                i,
                now,
                TimestampType.CREATE_TIME,
                1,
                1,
                "k",
                "v",
                new RecordHeaders(),
                Optional.empty()));
      }
      TopicPartition tp = new TopicPartition("bench", 0);
      ConsumerHooksTest.Holder consumer = new ConsumerHooksTest.Holder();
      for (int round = 0; round < 5; round++) {
        long start = System.nanoTime();
        int polls = 20_000;
        for (int p = 0; p < polls; p++) {
          ConsumerHooksTest.Holder req = new ConsumerHooksTest.Holder();
          ConsumerHooks.onFetchRequestCreated(req);
          ConsumerHooks.onFetchResponse(req);
          ConsumerHooksTest.Holder cf = new ConsumerHooksTest.Holder();
          ConsumerHooks.onCompletedFetchCreated(cf);
          ConsumerHooks.onFetchResponseDone();
          ConsumerHooks.onPollEnter(consumer);
          ConsumerHooks.onRecordsFetched(cf, tp, null, list);
          ConsumerHooks.onPollExit(consumer, null);
        }
        long nanos = System.nanoTime() - start;
        System.out.println("hooks cost per record: " + (double) nanos / (polls * 500L) + " ns");
      }
    } finally {
      TestRuntime.uninstall();
    }
  }
}
