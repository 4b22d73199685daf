package dev.klat.collector.broker;

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
    int readTimeoutMs) {

  /** True when any broker is configured or discovery is on. */
  public boolean enabled() {
    return !exporters.isEmpty() || !jmx.isEmpty() || !bootstrap.isEmpty();
  }
}
