package dev.klat.it.agent;

import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The middle hop of {@link PipelineIT}: a Kafka Streams application with {@code
 * processing.guarantee=exactly_once_v2} and the default commit interval of that guarantee (100 ms),
 * a stateless topology ({@code mapValues}) from {@link PipelineApp#ENRICHED} to {@link
 * PipelineApp#INVOICES}, application id {@link PipelineApp#INVOICER}. Its outputs are
 * transactional: a {@code read_committed} reader sees them once the task's transaction commits.
 * Streams copies each input's headers to its output. Arguments: bootstrap. Prints {@code RUNNING}
 * once Streams runs, and {@code PROCESSED=n} when standard input ends; then exits.
 */
public final class PipelineStreamsApp {

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, PipelineApp.INVOICER);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(
        StreamsConfig.STATE_DIR_CONFIG,
        System.getProperty("java.io.tmpdir")
            + "/klat-"
            + PipelineApp.INVOICER
            + "-"
            + ProcessHandle.current().pid());
    p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");

    AtomicLong processed = new AtomicLong();
    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, String>stream(PipelineApp.ENRICHED)
        .mapValues(
            v -> {
              processed.incrementAndGet();
              return v.toUpperCase(Locale.ROOT);
            })
        .to(PipelineApp.INVOICES);
    try (KafkaStreams streams = new KafkaStreams(builder.build(), p)) {
      streams.setStateListener(
          (now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
              System.out.println("RUNNING");
            }
          });
      streams.start();
      while (System.in.read() >= 0) {
        // Nothing is expected on standard input but its end.
      }
      streams.close(Duration.ofSeconds(30));
    }
    System.out.println("PROCESSED=" + processed.get());
    // Lets the agent's export interval pass before the JVM exits.
    Thread.sleep(2_000);
    System.exit(0);
  }

  private PipelineStreamsApp() {}
}
