package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BrokersTest {
  static final long MS = 1_000_000L;
  static final long T0 = 1_800_000_000_000L * MS;

  final AtomicLong clock = new AtomicLong(T0);
  final AtomicReference<String> body = new AtomicReference<>("");
  HttpServer exporter;

  @AfterEach
  void stop() {
    if (exporter != null) {
      exporter.stop(0);
    }
  }

  URI startExporter() throws IOException {
    exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    exporter.createContext(
        "/metrics",
        ex -> {
          byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
          }
        });
    exporter.start();
    return URI.create("http://127.0.0.1:" + exporter.getAddress().getPort() + "/metrics");
  }

  /** Exporter text where every Produce phase has {@code count} requests of mean {@code meanMs}. */
  static String produce(long count, double meanMs) {
    StringBuilder out = new StringBuilder("# TYPE jvm_threads_current gauge\n");
    out.append("jvm_threads_current 42.0\n");
    for (Phase phase : Phase.ALL) {
      for (String request : new String[] {"Produce", "FetchConsumer", "FetchFollower"}) {
        boolean p = request.equals("Produce");
        out.append(phase.exporterName)
            .append("_count{request=\"")
            .append(request)
            .append("\"} ")
            .append(p ? (double) count : 0.0)
            .append('\n');
        out.append(phase.exporterName)
            .append("_mean{request=\"")
            .append(request)
            .append("\"} ")
            .append(p ? meanMs : 0.0)
            .append('\n');
      }
    }
    return out.toString();
  }

  static BrokerSettings settings(Map<Integer, URI> exporters, String bootstrap, int port) {
    return new BrokerSettings(
        exporters, Map.of(), bootstrap, port, 0, 1000, 3000, 60_000, 1000, 1000, 2000);
  }

  static int deadPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void scrapesServeIntervalMeansAndStaleBrokersAnswerNull() throws IOException {
    URI uri = startExporter();
    try (Brokers brokers = new Brokers(settings(Map.of(1, uri), "", 0), clock::get, null, false)) {
      body.set(produce(100, 2.0));
      brokers.scrapeOnce();
      clock.addAndGet(1000 * MS);
      body.set(produce(110, (200 + 10 * 7.0) / 110));
      brokers.scrapeOnce();

      RequestTimings t = brokers.timings().lookup(1, Request.PRODUCE, T0 + 500 * MS);
      assertThat(t).isNotNull();
      assertThat(t.requests()).isEqualTo(10);
      assertThat(t.totalNanos()).isEqualTo(7 * MS);
      assertThat(brokers.timings().lookup(2, Request.PRODUCE, T0 + 500 * MS)).isNull();
      BrokerStatus s = brokers.status().get(0);
      assertThat(s.up()).isTrue();
      assertThat(s.source()).isEqualTo("exporter");
      assertThat(s.latest()).containsKey(Request.PRODUCE).doesNotContainKey(Request.FETCH_CONSUMER);
      assertThat(brokers.json())
          .contains("\"nodeId\":1", "\"up\":true", "\"Produce\":{\"requests\":10")
          .contains("\"total\":7", "\"FetchConsumer\":null", "\"discovery\":null");

      exporter.stop(0);
      exporter = null;
      clock.addAndGet(1000 * MS);
      brokers.scrapeOnce();
      s = brokers.status().get(0);
      assertThat(s.scrapeErrors()).isEqualTo(1);
      assertThat(s.lastError()).contains("exporter " + uri);
      assertThat(s.up()).isFalse();
      assertThat(brokers.json()).contains("\"up\":false", "\"scrapeErrors\":1");
      // Still within the stale limit of the last interval, then not.
      assertThat(brokers.timings().lookup(1, Request.PRODUCE, clock.get())).isNotNull();
      assertThat(brokers.timings().lookup(1, Request.PRODUCE, T0 + 1000 * MS + 3001 * MS)).isNull();
    }
  }

  @Test
  void anExporterWithoutOurRulesIsReportedAsMissing() throws IOException {
    URI uri = startExporter();
    body.set("# TYPE jvm_threads_current gauge\njvm_threads_current 42.0\n");
    try (Brokers brokers = new Brokers(settings(Map.of(3, uri), "", 0), clock::get, null, false)) {
      brokers.scrapeOnce();
      BrokerStatus s = brokers.status().get(0);
      assertThat(s.up()).isFalse();
      assertThat(s.lastError()).contains("no kafka.network RequestMetrics");
    }
  }

  @Test
  void aMalformedScrapeIsAnErrorNotAnException() throws IOException {
    URI uri = startExporter();
    body.set("kafka_network_requestmetrics_totaltimems_count{request=\"Produce\"} 1.5\n");
    try (Brokers brokers = new Brokers(settings(Map.of(3, uri), "", 0), clock::get, null, false)) {
      brokers.scrapeOnce();
      assertThat(brokers.status().get(0).lastError()).contains("line 1", "whole number");
    }
  }

  @Test
  void aDeadBrokerIsCountedAndRecoversWhenItComesBack() throws IOException {
    int port = deadPort();
    URI uri = URI.create("http://127.0.0.1:" + port + "/metrics");
    try (Brokers brokers = new Brokers(settings(Map.of(7, uri), "", 0), clock::get, null, false)) {
      brokers.scrapeOnce();
      brokers.scrapeOnce();
      BrokerStatus s = brokers.status().get(0);
      assertThat(s.up()).isFalse();
      assertThat(s.scrapeErrors()).isEqualTo(2);
      assertThat(s.lastSuccessEpochNanos()).isEqualTo(-1);
      clock.addAndGet(5000 * MS);
      assertThat(brokers.status().get(0).ageNanos()).isEqualTo(5000 * MS);

      exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 8);
      exporter.createContext(
          "/metrics",
          ex -> {
            byte[] bytes = produce(5, 1.0).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
              out.write(bytes);
            }
          });
      exporter.start();
      brokers.scrapeOnce();
      s = brokers.status().get(0);
      assertThat(s.up()).isTrue();
      assertThat(s.lastError()).isNull();
      assertThat(s.scrapeErrors()).isEqualTo(2);
    }
  }

  @Test
  void discoveryAddsBrokersWithThePortsAndForgetsThemLongAfterTheyLeft() throws IOException {
    URI uri = startExporter();
    body.set(produce(1, 1.0));
    int port = uri.getPort();
    Map<Integer, String> nodes = new TreeMap<>(Map.of(1, "127.0.0.1", 2, "127.0.0.1"));
    AtomicReference<Exception> failure = new AtomicReference<>();
    Discovery fake =
        new Discovery() {
          @Override
          public Map<Integer, String> nodes() throws Exception {
            if (failure.get() != null) {
              throw failure.get();
            }
            return new TreeMap<>(nodes);
          }

          @Override
          public void close() {}
        };
    // Broker 2 is also configured by list, which wins over discovery.
    URI listed = URI.create("http://127.0.0.1:" + deadPort() + "/metrics");
    try (Brokers brokers =
        new Brokers(settings(Map.of(2, listed), "kafka:9092", port), clock::get, fake, false)) {
      brokers.discoverOnce();
      brokers.scrapeOnce();
      assertThat(brokers.status()).extracting(BrokerStatus::nodeId).containsExactly(1, 2);
      BrokerStatus one = brokers.status().get(0);
      assertThat(one.discovered()).isTrue();
      assertThat(one.sources()).containsExactly("exporter " + uri);
      assertThat(one.up()).isTrue();
      assertThat(brokers.status().get(1).discovered()).isFalse();
      assertThat(brokers.status().get(1).sources()).containsExactly("exporter " + listed);

      nodes.put(3, "127.0.0.1"); // a new broker appears
      failure.set(new IllegalStateException("cluster unreachable"));
      brokers.discoverOnce();
      assertThat(brokers.json()).contains("\"lastError\":\"IllegalStateException: cluster");
      failure.set(null);
      brokers.discoverOnce();
      assertThat(brokers.status()).extracting(BrokerStatus::nodeId).containsExactly(1, 2, 3);
      assertThat(brokers.json()).contains("\"bootstrap\":\"kafka:9092\"", "\"errors\":1");

      nodes.remove(1); // stopped: kept and reported until it has been gone for the history
      brokers.discoverOnce();
      clock.addAndGet(60_000 * MS);
      brokers.discoverOnce();
      assertThat(brokers.status()).extracting(BrokerStatus::nodeId).contains(1);
      clock.addAndGet(1);
      brokers.discoverOnce();
      assertThat(brokers.status()).extracting(BrokerStatus::nodeId).containsExactly(2, 3);
      assertThat(brokers.timings().lookup(1, Request.PRODUCE, T0)).isNull();
    }
  }

  @Test
  void aJmxSourceThatCannotConnectIsAnErrorWithinTheTimeout() throws Exception {
    JMXServiceURL url = new JMXServiceURL(JmxSource.serviceUrl("127.0.0.1", deadPort()));
    try (Brokers brokers =
        new Brokers(
            new BrokerSettings(
                Map.of(), Map.of(4, url), "", 0, 0, 1000, 3000, 60_000, 1000, 1000, 2000),
            clock::get,
            null,
            false)) {
      long started = System.nanoTime();
      brokers.scrapeOnce();
      assertThat(System.nanoTime() - started).isLessThan(5_000 * MS);
      BrokerStatus s = brokers.status().get(0);
      assertThat(s.up()).isFalse();
      assertThat(s.lastError()).startsWith("jmx service:jmx:rmi:");
    }
  }

  @Test
  void anExporterThatStallsHalfwayFailsWithinTheReadTimeout() throws IOException {
    exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    exporter.createContext(
        "/metrics",
        ex -> {
          byte[] bytes = produce(5, 1.0).getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, bytes.length);
          OutputStream out = ex.getResponseBody();
          out.write(bytes, 0, bytes.length / 2);
          out.flush();
          try {
            Thread.sleep(2000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ex.close();
        });
    exporter.start();
    URI uri = URI.create("http://127.0.0.1:" + exporter.getAddress().getPort() + "/metrics");
    BrokerSettings settings =
        new BrokerSettings(Map.of(5, uri), Map.of(), "", 0, 0, 1000, 3000, 60_000, 1000, 500, 500);
    try (Brokers brokers = new Brokers(settings, clock::get, null, false)) {
      long started = System.nanoTime();
      brokers.scrapeOnce();
      assertThat(System.nanoTime() - started).isLessThan(3_000 * MS);
      assertThat(brokers.status().get(0).lastError()).contains("SocketTimeoutException");
    }
  }

  @Test
  void discoveryDescribesTheTopicsTheCorrelatorAskedAbout() {
    java.util.List<java.util.Collection<String>> asked = new java.util.ArrayList<>();
    Discovery fake =
        new Discovery() {
          @Override
          public Map<Integer, String> nodes() {
            return Map.of(1, "127.0.0.1", 2, "127.0.0.1");
          }

          @Override
          public Map<String, int[]> replicaCounts(java.util.Collection<String> topics) {
            asked.add(topics);
            return topics.contains("orders") ? Map.of("orders", new int[] {1, 2}) : Map.of();
          }

          @Override
          public void close() {}
        };
    try (Brokers brokers =
        new Brokers(settings(Map.of(), "kafka:9092", 0), clock::get, fake, false)) {
      assertThat(brokers.replicas().replicationFactor("orders", 0)).isEqualTo(-1);
      brokers.discoverOnce();
      assertThat(asked.get(asked.size() - 1)).containsExactly("orders");
      assertThat(brokers.replicas().replicationFactor("orders", 0)).isEqualTo(1);
      assertThat(brokers.replicas().replicationFactor("orders", 1)).isEqualTo(2);
    }
  }
}
