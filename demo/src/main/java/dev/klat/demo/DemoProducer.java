package dev.klat.demo;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The demo's producer application: an ordinary Kafka producer, run with the klat agent, that writes
 * order events at the rate and with the settings of the scenario in force. Usage: {@code
 * DemoProducer <bootstrap> <topic> <scenarioFile>}.
 */
public final class DemoProducer {

  private static final long TICK_NANOS = 10_000_000L;

  private DemoProducer() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    Path scenarioFile = Paths.get(args[2]);
    AtomicLong failures = new AtomicLong();
    try (KafkaProducer<String, String> prompt = producer(bootstrap, "demo-producer", 5);
        KafkaProducer<String, String> lingering =
            producer(bootstrap, "demo-producer-lingering", 500)) {
      Scenario scenario = Scenario.STEADY;
      long nextScenarioReadNanos = 0;
      long sequence = 0;
      double owed = 0;
      long nextTickNanos = System.nanoTime();
      while (true) {
        long now = System.nanoTime();
        if (now >= nextScenarioReadNanos) {
          scenario = Scenario.readFrom(scenarioFile, scenario);
          nextScenarioReadNanos = now + 500_000_000L;
        }
        owed += recordsPerSecond(scenario) * (TICK_NANOS / 1e9);
        KafkaProducer<String, String> producer =
            scenario == Scenario.LINGER_BURST ? lingering : prompt;
        for (; owed >= 1; owed--) {
          long id = sequence++;
          producer.send(
              new ProducerRecord<>(topic, "order-" + (id % 1000), orderEvent(id)),
              (metadata, exception) -> {
                if (exception != null && failures.getAndIncrement() % 100 == 0) {
                  System.err.println("demo producer: send failed: " + exception);
                }
              });
        }
        nextTickNanos += TICK_NANOS;
        long sleepNanos = nextTickNanos - System.nanoTime();
        if (sleepNanos > 0) {
          Thread.sleep(sleepNanos / 1_000_000L, (int) (sleepNanos % 1_000_000L));
        } else {
          nextTickNanos = System.nanoTime();
        }
      }
    }
  }

  // Low rates where batching or fetch waiting is the point: a full batch or a full fetch would
  // otherwise end the wait early.
  private static double recordsPerSecond(Scenario scenario) {
    switch (scenario) {
      case LINGER_BURST:
        return 40;
      case FETCH_WAIT:
        return 20;
      default:
        return 200;
    }
  }

  private static KafkaProducer<String, String> producer(
      String bootstrap, String clientId, int lingerMs) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("client.id", clientId);
    properties.put("acks", "all");
    properties.put("linger.ms", Integer.toString(lingerMs));
    properties.put("key.serializer", StringSerializer.class.getName());
    properties.put("value.serializer", StringSerializer.class.getName());
    return new KafkaProducer<>(properties);
  }

  private static String orderEvent(long id) {
    return "{\"order\":"
        + id
        + ",\"item\":\"sku-"
        + (id % 97)
        + "\",\"quantity\":"
        + (1 + id % 5)
        + "}";
  }
}
