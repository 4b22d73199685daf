package dev.klat.it.agent;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A plain producer application, run in its own JVM with one kafka-clients version and, usually, the
 * klat agent. It uses only API present in kafka-clients 2.8 to 4.4. What it observes goes to stdout
 * as {@code KEY=value} lines for the test to check.
 */
public final class ProducerApp {

  /** The upstream trace context one record carries, as an upstream service would have set it. */
  static final String UPSTREAM_TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int count = Integer.parseInt(args[2]);
    long lingerAfterCloseMillis = Long.parseLong(args[3]);

    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("acks", "all");
    properties.put("linger.ms", "5");
    properties.put("client.id", "it-producer");
    properties.put("key.serializer", StringSerializer.class.getName());
    properties.put("value.serializer", StringSerializer.class.getName());

    AtomicInteger appCallbacks = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    int sent = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(properties)) {
      for (int i = 0; i < count; i++) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, "k-" + i, "v-" + i);
        if (i % 2 == 0) {
          producer.send(
              record,
              (RecordMetadata metadata, Exception e) -> {
                if (e == null) {
                  appCallbacks.incrementAndGet();
                } else {
                  failures.incrementAndGet();
                }
              });
        } else {
          producer.send(record);
        }
        sent++;
      }
      // The same object sent twice: Kafka made its headers read-only at the first send.
      ProducerRecord<String, String> reused = new ProducerRecord<>(topic, "reused", "reused");
      producer.send(reused).get(30, TimeUnit.SECONDS);
      producer.send(reused).get(30, TimeUnit.SECONDS);
      sent += 2;
      System.out.println("RESEND=ok");

      ProducerRecord<String, String> traced = new ProducerRecord<>(topic, "traced", "traced");
      traced.headers().add("traceparent", UPSTREAM_TRACEPARENT.getBytes(StandardCharsets.US_ASCII));
      producer.send(traced).get(30, TimeUnit.SECONDS);
      sent++;
      producer.flush();
    }
    System.out.println("SENT=" + sent);
    System.out.println("APP_CALLBACKS=" + appCallbacks.get());
    System.out.println("FAILURES=" + failures.get());
    // Gives the agent's metrics interval time to pass before the JVM exits.
    Thread.sleep(lingerAfterCloseMillis);
    System.out.println("DONE");
  }
}
