package dev.klat.collector.broker;

import dev.klat.collector.KafkaClientConfig;
import java.net.URI;
import java.util.Map;
import javax.management.remote.JMXServiceURL;

/**
 * What to scrape and how often.
 *
 * @param exporters node id to JMX exporter URL
 * @param jmx node id to JMX service URL
 * @param bootstrap bootstrap servers for discovery, or empty
 * @param exporterPort with discovery, each broker's exporter port (0: none)
 * @param jmxPort with discovery, each broker's JMX port (0: none)
 * @param scrapeIntervalMs time between scrapes of a broker
 * @param staleMs how long an interval answers lookups after it ended
 * @param historyMs how far back intervals are kept
 * @param discoveryIntervalMs time between discoveries
 * @param connectTimeoutMs connect timeout of every scrape and discovery
 * @param readTimeoutMs read timeout of every scrape and discovery
 * @param kafka the client properties of discovery ({@code brokers.kafka-config})
 * @param jmxAuth credentials and TLS of the JMX reads
 * @param exporterAuth credentials and trust of the exporter scrapes
 */
public record BrokerSettings(
    Map<Integer, URI> exporters,
    Map<Integer, JMXServiceURL> jmx,
    String bootstrap,
    int exporterPort,
    int jmxPort,
    long scrapeIntervalMs,
    long staleMs,
    long historyMs,
    long discoveryIntervalMs,
    int connectTimeoutMs,
    int readTimeoutMs,
    KafkaClientConfig kafka,
    JmxAuth jmxAuth,
    ExporterAuth exporterAuth) {

  /** Plaintext, no credentials. */
  public BrokerSettings(
      Map<Integer, URI> exporters,
      Map<Integer, JMXServiceURL> jmx,
      String bootstrap,
      int exporterPort,
      int jmxPort,
      long scrapeIntervalMs,
      long staleMs,
      long historyMs,
      long discoveryIntervalMs,
      int connectTimeoutMs,
      int readTimeoutMs) {
    this(
        exporters,
        jmx,
        bootstrap,
        exporterPort,
        jmxPort,
        scrapeIntervalMs,
        staleMs,
        historyMs,
        discoveryIntervalMs,
        connectTimeoutMs,
        readTimeoutMs,
        KafkaClientConfig.none("brokers.kafka-config"),
        JmxAuth.NONE,
        ExporterAuth.NONE);
  }

  /** True when any broker is configured or discovery is on. */
  public boolean enabled() {
    return !exporters.isEmpty() || !jmx.isEmpty() || !bootstrap.isEmpty();
  }
}
