package dev.klat.demo;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Collections;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The demo's consumer application: an ordinary consumer group member, run with the klat agent, that
 * behaves as the scenario in force asks: prompt, sleeping after each poll, or configured to wait
 * for large fetches. Usage: {@code DemoConsumer <bootstrap> <topic> <group> <scenarioFile>
 * [last-hop]}: with {@code last-hop} it is the demo pipeline's last group instead, which sleeps
 * only in {@link Scenario#SLOW_LAST_HOP} and never waits for large fetches.
 */
public final class DemoConsumer {

  private DemoConsumer() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    String group = args[2];
    Path scenarioFile = Paths.get(args[3]);
    boolean lastHop = args.length > 4 && args[4].equals("last-hop");
    Scenario slowIn = lastHop ? Scenario.SLOW_LAST_HOP : Scenario.SLOW_CONSUMER;
    String clientId = lastHop ? group : "demo-consumer";
    Scenario scenario = Scenario.readFrom(scenarioFile, Scenario.STEADY);
    long consumed = 0;
    long nextScenarioReadNanos = 0;
    while (true) {
      boolean fetchWait = !lastHop && scenario == Scenario.FETCH_WAIT;
      // The fetch settings are fixed for a consumer's life: a new scenario may need a new member.
      try (KafkaConsumer<String, String> consumer =
          consumer(bootstrap, group, clientId, fetchWait)) {
        consumer.subscribe(Collections.singletonList(topic));
        while ((!lastHop && scenario == Scenario.FETCH_WAIT) == fetchWait) {
          ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
          consumed += records.count();
          if (scenario == slowIn && !records.isEmpty()) {
            Thread.sleep(200);
          }
          long now = System.nanoTime();
          if (now >= nextScenarioReadNanos) {
            scenario = Scenario.readFrom(scenarioFile, scenario);
            nextScenarioReadNanos = now + 500_000_000L;
          }
        }
      }
      System.out.println(clientId + ": " + consumed + " records so far, now " + scenario.id);
    }
  }

  private static KafkaConsumer<String, String> consumer(
      String bootstrap, String group, String clientId, boolean fetchWait) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("group.id", group);
    properties.put("client.id", clientId);
    properties.put("auto.offset.reset", "latest");
    properties.put("max.poll.records", "20");
    if (fetchWait) {
      properties.put("fetch.min.bytes", Integer.toString(1 << 20));
      properties.put("fetch.max.wait.ms", "500");
    }
    properties.put("key.deserializer", StringDeserializer.class.getName());
    properties.put("value.deserializer", StringDeserializer.class.getName());
    return new KafkaConsumer<>(properties);
  }
}
