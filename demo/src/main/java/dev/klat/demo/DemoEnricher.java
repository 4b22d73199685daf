package dev.klat.demo;

import java.time.Duration;
import java.util.Collections;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The demo pipeline's middle hop: an ordinary consume-transform-produce application, run with the
 * klat agent. A plain poll loop reads order events in its own consumer group and sends each one,
 * enriched, to a second topic, on the thread that polled it. It forwards no header and knows
 * nothing of klat: the agent links each output record to the input record the thread took from the
 * poll (section 9 of the latency model). Usage: {@code DemoEnricher <bootstrap> <inputTopic>
 * <group> <outputTopic>}.
 */
public final class DemoEnricher {

  private DemoEnricher() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String inputTopic = args[1];
    String group = args[2];
    String outputTopic = args[3];
    AtomicLong failures = new AtomicLong();
    long enriched = 0;
    long nextReportNanos = System.nanoTime();
    try (KafkaConsumer<String, String> consumer = consumer(bootstrap, group);
        KafkaProducer<String, String> producer = producer(bootstrap)) {
      consumer.subscribe(Collections.singletonList(inputTopic));
      while (true) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<String, String> record : records) {
          producer.send(
              new ProducerRecord<>(outputTopic, record.key(), enrich(record.value())),
              (metadata, exception) -> {
                if (exception != null && failures.getAndIncrement() % 100 == 0) {
                  System.err.println("demo enricher: send failed: " + exception);
                }
              });
          enriched++;
        }
        if (System.nanoTime() >= nextReportNanos) {
          System.out.println("demo enricher: " + enriched + " records enriched so far");
          nextReportNanos = System.nanoTime() + 30_000_000_000L;
        }
      }
    }
  }

  /** The order event with the fields an enrichment step would add. */
  static String enrich(String orderEvent) {
    String body = orderEvent.endsWith("}") ? orderEvent.substring(0, orderEvent.length() - 1) : "{";
    return body
        + (body.length() > 1 ? "," : "")
        + "\"region\":\"eu-west\",\"priority\":\"normal\"}";
  }

  private static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("group.id", group);
    properties.put("client.id", "demo-enricher");
    properties.put("auto.offset.reset", "latest");
    properties.put("max.poll.records", "100");
    properties.put("key.deserializer", StringDeserializer.class.getName());
    properties.put("value.deserializer", StringDeserializer.class.getName());
    return new KafkaConsumer<>(properties);
  }

  private static KafkaProducer<String, String> producer(String bootstrap) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("client.id", "demo-enricher");
    properties.put("acks", "all");
    properties.put("linger.ms", "5");
    properties.put("key.serializer", StringSerializer.class.getName());
    properties.put("value.serializer", StringSerializer.class.getName());
    return new KafkaProducer<>(properties);
  }
}
