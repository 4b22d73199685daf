package dev.klat.it.agent;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * A Kafka Streams application with a stateless topology (input, upper-cased values, output), run
 * with the agent: Streams makes its own producer and consumer, and copies each input record's
 * headers to the output record. Arguments: bootstrap, application id, input topic, output topic,
 * records to process. Prints {@code PROCESSED=n}.
 */
public final class StreamsApp {

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String applicationId = args[1];
    String input = args[2];
    String output = args[3];
    int expected = Integer.parseInt(args[4]);

    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(
        StreamsConfig.STATE_DIR_CONFIG, System.getProperty("java.io.tmpdir") + "/" + applicationId);
    p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");

    AtomicInteger processed = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, String>stream(input)
        .mapValues(v -> v.toUpperCase(java.util.Locale.ROOT))
        .peek(
            (k, v) -> {
              if (processed.incrementAndGet() >= expected) {
                done.countDown();
              }
            })
        .to(output);
    try (KafkaStreams streams = new KafkaStreams(builder.build(), p)) {
      streams.start();
      if (!done.await(90, TimeUnit.SECONDS)) {
        throw new IllegalStateException("processed " + processed.get() + " of " + expected);
      }
      // One commit interval, so that the last outputs are flushed before the close.
      Thread.sleep(500);
      streams.close(Duration.ofSeconds(30));
    }
    System.out.println("PROCESSED=" + processed.get());
    // Lets the agent's export interval pass before the JVM exits (AppJvm.LINGER_MILLIS says why
    // that is enough; a compile-time constant, so this JVM need not load AppJvm).
    Thread.sleep(Long.parseLong(AppJvm.LINGER_MILLIS));
    System.out.println("DONE");
  }
}
