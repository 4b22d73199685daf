package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.Collector;
import dev.klat.collector.CollectorConfig;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real broker (its own JVM, with the JMX exporter and our rules, and a JMX port): both sources
 * read its Produce timings, the collector discovers it through the Admin client, and a killed
 * broker is reported down without an exception anywhere. The last test kills the broker.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BrokerMetricsIT {
  static final String TOPIC = "timed";

  @RegisterExtension static final KafkaClusterExtension kafka = KafkaClusterExtension.brokers(1);

  static final HttpClient http = HttpClient.newHttpClient();
  static KafkaProducer<String, String> acksAll;
  static KafkaProducer<String, String> acksOne;

  @BeforeAll
  static void producers() {
    kafka.cluster().createTopic(TopicSpec.named(TOPIC).build());
    acksAll = producer("all");
    acksOne = producer("1");
  }

  @AfterAll
  static void closeProducers() {
    acksAll.close(Duration.ofSeconds(1));
    acksOne.close(Duration.ofSeconds(1));
  }

  static KafkaProducer<String, String> producer(String acks) {
    Properties p = kafka.cluster().clientProperties();
    p.put(ProducerConfig.ACKS_CONFIG, acks);
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "5000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /** Synchronous sends, so that each is one produce request. */
  static void produce(int records) throws Exception {
    for (int i = 0; i < records; i++) {
      KafkaProducer<String, String> producer = i % 2 == 0 ? acksAll : acksOne;
      producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)).get(10, TimeUnit.SECONDS);
    }
  }

  static long nowNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  static Broker broker() {
    return kafka.cluster().broker(1);
  }

  static BrokerSettings listed(Map<Integer, URI> exporters, Map<Integer, JMXServiceURL> jmx) {
    return new BrokerSettings(exporters, jmx, "", 0, 0, 500, 30_000, 600_000, 1000, 2000, 5000);
  }

  /** Scrape, produce, scrape: the interval in between must hold those requests, and sane means. */
  static BrokerStatus assertSourceReadsProduceTimings(BrokerSettings settings, String kind)
      throws Exception {
    try (Brokers brokers = new Brokers(settings, BrokerMetricsIT::nowNanos, null, false)) {
      brokers.scrapeOnce();
      long before = nowNanos();
      produce(20);
      long after = nowNanos();
      brokers.scrapeOnce();
      RequestTimings t = brokers.timings().lookup(1, Request.PRODUCE, (before + after) / 2);
      assertThat(t).as(kind).isNotNull();
      assertThat(t.requests())
          .as(kind)
          .isBetween(20L, 40L); // the producers' metadata is not Produce
      assertPlausible(t);
      // One broker: no ISR to shrink since the first scrape, which began before `before`.
      BrokerTimings.Replication replication = brokers.timings().replication(1, before);
      assertThat(replication).as(kind).isNotNull();
      assertThat(replication.isrShrinks()).isEqualTo(new BrokerTimings.Changes(0, false));
      assertThat(replication.maxLagMessages()).isGreaterThanOrEqualTo(0);
      BrokerStatus status = brokers.status().get(0);
      assertThat(status.up()).isTrue();
      assertThat(status.source()).isEqualTo(kind);
      return status;
    }
  }

  static void assertPlausible(RequestTimings t) {
    long second = 1_000_000_000L;
    assertThat(t.totalNanos()).isBetween(0L, 10 * second);
    for (long phase :
        new long[] {
          t.requestQueueNanos(),
          t.localNanos(),
          t.remoteNanos(),
          t.throttleNanos(),
          t.responseQueueNanos(),
          t.responseSendNanos()
        }) {
      // Every phase is part of the total; each request's phases are rounded to whole ms apart.
      assertThat(phase).isBetween(0L, t.totalNanos() + 1_000_000L);
    }
    assertThat(t.throttleNanos()).isZero();
    assertThat(t.intervalEndEpochNanos()).isGreaterThan(t.intervalStartEpochNanos());
  }

  @Test
  @Order(1)
  void theExporterSourceReadsProduceTimings() throws Exception {
    BrokerStatus s =
        assertSourceReadsProduceTimings(
            listed(Map.of(1, broker().metricsEndpoint()), Map.of()), "exporter");
    assertThat(s.sources()).containsExactly("exporter " + broker().metricsEndpoint());
  }

  @Test
  @Order(2)
  void theJmxSourceReadsProduceTimings() throws Exception {
    JMXServiceURL url = new JMXServiceURL(broker().jmxServiceUrl());
    assertSourceReadsProduceTimings(listed(Map.of(), Map.of(1, url)), "jmx");
  }

  @Test
  @Order(3)
  void bothSourcesReadTheSameHistograms() throws Exception {
    produce(2);
    ExporterSource exporter = new ExporterSource(broker().metricsEndpoint(), 2000, 5000);
    JmxSource jmx = new JmxSource(new JMXServiceURL(broker().jmxServiceUrl()), 2000, 5000);
    try {
      Reading viaExporter = exporter.read(BrokerMetricsIT::nowNanos);
      Reading viaJmx = jmx.read(BrokerMetricsIT::nowNanos);
      for (Phase phase : Phase.ALL) {
        assertThat(viaJmx.count(Request.PRODUCE, phase))
            .as(phase.name())
            .isPositive()
            .isEqualTo(viaExporter.count(Request.PRODUCE, phase));
        assertThat(viaJmx.meanMs(Request.PRODUCE, phase))
            .isEqualTo(viaExporter.meanMs(Request.PRODUCE, phase));
      }
      assertThat(viaJmx.complete(Request.FETCH_FOLLOWER)).isTrue(); // present, with no requests
      // The ReplicaManager counts: the broker leads the test's partitions, none under min ISR.
      assertThat(viaExporter.partitions().leaders()).isPositive();
      assertThat(viaJmx.partitions()).isEqualTo(viaExporter.partitions());
      assertThat(viaJmx.partitions().partitions())
          .isGreaterThanOrEqualTo(viaJmx.partitions().leaders());
      assertThat(viaJmx.partitions().underMinIsr()).isZero();
      // The ISR change counts and the follower side's lag, the same from each.
      assertThat(viaExporter.isrShrinks()).isGreaterThanOrEqualTo(0);
      assertThat(viaJmx.isrShrinks()).isEqualTo(viaExporter.isrShrinks());
      assertThat(viaJmx.isrExpands()).isGreaterThanOrEqualTo(0).isEqualTo(viaExporter.isrExpands());
      assertThat(viaExporter.maxLagMessages()).isGreaterThanOrEqualTo(0);
      assertThat(viaJmx.maxLagMessages()).isGreaterThanOrEqualTo(0);
    } finally {
      jmx.close();
    }
  }

  @Test
  @Order(4)
  void discoveryReadsEachPartitionsReplicaCountAndLeavesOutTopicsItCannotDescribe()
      throws Exception {
    try (Discovery discovery = new Discovery.ViaAdmin(kafka.cluster().bootstrapServers(), 5000)) {
      assertThat(discovery.nodes()).containsOnlyKeys(1);
      Map<String, int[]> counts =
          discovery.replicaCounts(java.util.List.of(TOPIC, "no-such-topic"));
      assertThat(counts).containsOnlyKeys(TOPIC);
      assertThat(counts.get(TOPIC)).containsOnly(1);
    }
  }

  @Test
  @Order(5)
  void theCollectorDiscoversTheBrokerServesItsTimingsAndReportsItDownWhenKilled() throws Exception {
    Broker broker = broker();
    KafkaCluster cluster = kafka.cluster();
    try (Collector collector =
        Collector.start(
            CollectorConfig.of(
                Map.ofEntries(
                    Map.entry("otlp.http.port", "0"),
                    Map.entry("otlp.grpc.enabled", "false"),
                    Map.entry("admin.port", "0"),
                    Map.entry("brokers.bootstrap", cluster.bootstrapServers()),
                    Map.entry(
                        "brokers.exporter-port",
                        Integer.toString(broker.metricsEndpoint().getPort())),
                    Map.entry(
                        "brokers.jmx-port", Integer.toString(jmxPort(broker.jmxServiceUrl()))),
                    Map.entry("brokers.discovery-interval", "1s"),
                    Map.entry("brokers.scrape-interval", "500ms"),
                    Map.entry("brokers.stale", "2s"),
                    Map.entry("brokers.history", "1m"),
                    Map.entry("brokers.connect-timeout", "1s"),
                    Map.entry("brokers.read-timeout", "2s"))))) {
      String admin = "http://127.0.0.1:" + collector.adminAddress().getPort();
      BrokerTimings timings = collector.brokerTimings();

      RequestTimings t =
          await(
              () -> {
                try {
                  produce(5);
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
                RequestTimings found = timings.lookup(1, Request.PRODUCE, nowNanos());
                return found != null && found.requests() > 0 ? found : null;
              });
      assertPlausible(t);
      String brokers = get(admin + "/api/brokers");
      assertThat(brokers)
          .contains("\"nodeId\":1", "\"discovered\":true", "\"up\":true", "\"source\":\"exporter\"")
          .contains("\"sources\":[\"exporter " + broker.metricsEndpoint() + "\",\"jmx ")
          .contains("\"Produce\":{\"requests\":", "\"lastError\":null")
          .contains("\"bootstrap\":\"" + cluster.bootstrapServers() + "\"");
      assertThat(get(admin + "/metrics"))
          .contains("klat_collector_broker_up{broker=\"1\"} 1")
          .contains("klat_collector_broker_scrape_errors_total{broker=\"1\"} 0")
          .contains("klat_collector_broker_scrape_age_seconds{broker=\"1\"} ");

      broker.kill();
      long killedNanos = nowNanos();
      String down =
          await(
              () -> {
                String body = get(admin + "/api/brokers");
                return body.contains("\"up\":false") ? body : null;
              });
      assertThat(down).contains("\"nodeId\":1", "\"lastError\":\"exporter ");
      assertThat(get(admin + "/metrics"))
          .contains("klat_collector_broker_up{broker=\"1\"} 0")
          .doesNotContain("klat_collector_broker_scrape_errors_total{broker=\"1\"} 0\n");
      // Until the stale limit the last interval still answers; after it, nothing does.
      await(() -> timings.lookup(1, Request.PRODUCE, nowNanos()) == null ? "stale" : null);
      assertThat(nowNanos() - killedNanos).isLessThan(20_000_000_000L);
      // What was measured while the broker lived is still there for records of that time.
      assertThat(timings.lookup(1, Request.PRODUCE, t.intervalEndEpochNanos())).isNotNull();
    }
  }

  static int jmxPort(String serviceUrl) {
    // service:jmx:rmi:///jndi/rmi://127.0.0.1:<port>/jmxrmi
    String tail = serviceUrl.substring(serviceUrl.lastIndexOf(':') + 1);
    return Integer.parseInt(tail.substring(0, tail.indexOf('/')));
  }

  static String get(String url) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(url).isEqualTo(200);
      return r.body();
    } catch (Exception e) {
      throw new AssertionError(url, e);
    }
  }

  static <T> T await(Supplier<T> check) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      T value = check.get();
      if (value != null) {
        return value;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 20 s");
      }
      Thread.sleep(100);
    }
  }
}
