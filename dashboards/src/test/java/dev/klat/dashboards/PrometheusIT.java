package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.demo.AgentCommand;
import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.testsupport.RequiredTool;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The dashboards and rules against the real thing: a broker with the JMX exporter and our rules,
 * the collector jar, the demo producer and consumer with the agent (and the demo's enricher and a
 * last group, a two-hop pipeline for the pipelines dashboard), and Debian's Prometheus (with
 * exemplar storage) scraping the collector and the broker and evaluating our rules. Then every
 * query of every panel, every variable and every recording rule must return data, every metric an
 * alert reads must have data, and the end-to-end histogram must carry exemplars with trace ids.
 *
 * <p>Not evaluated here: the Tempo panel (TraceQL), since no Tempo runs on the test machine; {@code
 * MetricNamesTest} checks that its span attributes are ones the model defines.
 */
// CI runs it on its first JDK only (JdkIndependent): what it checks is our queries and rules
// against what Prometheus scrapes. That the agent and the collector make those metrics on the
// second JDK is checked there by the collector's tests and the it-tests (CollectorEndToEndIT).
@Tag("jdk-independent")
class PrometheusIT {
  private static final String TOPIC = "dashboards-orders";
  private static final String GROUP = "dashboards-app";
  // The pipeline: TOPIC -> ENRICHER -> SECOND_TOPIC -> LAST_GROUP.
  private static final String ENRICHER = "dashboards-enricher";
  private static final String SECOND_TOPIC = "dashboards-orders-enriched";
  private static final String LAST_GROUP = "dashboards-billing";
  // Agents export every 5 s and Prometheus scrapes every 2 s: a 30 s window holds several points.
  private static final String RATE_INTERVAL = "30s";
  private static final Duration DATA_DEADLINE = Duration.ofSeconds(150);
  // The recorded series of the klat.opentelemetry rules, which keep the capture label.
  private static final String OPENTELEMETRY_RULES = "capture_topic_group";

  private final List<Process> processes = new ArrayList<>();
  private final Path work = Paths.get("target", "prometheus-it").toAbsolutePath();

  @AfterEach
  void stopProcesses() throws InterruptedException {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void everyPanelAndRuleQueryReturnsDataFromARealCollector() throws Exception {
    Path prometheus = RequiredTool.PROMETHEUS.require("PrometheusIT");
    Path root = Repo.root();
    Path agentJar = requireFile(root.resolve("agent/target/klat-agent.jar"));
    Path collectorJar = requireFile(root.resolve("collector/target/klat-collector.jar"));
    String demoClassPath =
        requireFile(root.resolve("demo/target/classes"))
            + ":"
            + new String(
                    Files.readAllBytes(requireFile(root.resolve("demo/target/demo.classpath"))),
                    StandardCharsets.UTF_8)
                .trim();
    Files.createDirectories(work);

    try (KafkaCluster cluster =
        KafkaClusterSpec.brokers(1)
            .name("dashboards-it")
            .workRoot(work.resolve("kafka-cluster"))
            .startTimeout(Duration.ofMinutes(2))
            .start()) {
      try (Admin admin = cluster.admin()) {
        // LogAppendTime gives the collector L, so publish and commit are both known.
        admin
            .createTopics(
                List.of(
                    new NewTopic(TOPIC, 3, (short) 1)
                        .configs(Map.of("message.timestamp.type", "LogAppendTime")),
                    new NewTopic(SECOND_TOPIC, 3, (short) 1)
                        .configs(Map.of("message.timestamp.type", "LogAppendTime"))))
            .all()
            .get(60, TimeUnit.SECONDS);
      }
      int otlpPort = freePort();
      int adminPort = freePort();
      start(
          "collector",
          List.of(
              java(),
              "-Xmx256m",
              "-jar",
              collectorJar.toString(),
              "--otlp.http.port=" + otlpPort,
              "--admin.port=" + adminPort,
              "--brokers.exporter=" + exporters(cluster.brokers()),
              "--brokers.scrape-interval=1s",
              "--diagnosis.interval=2s"));
      awaitHttp(URI.create("http://127.0.0.1:" + adminPort + "/healthz"), Duration.ofSeconds(60));

      Path scenario = work.resolve("scenario");
      // A lingering producer: the diagnosis names linger.ms, so its panels have data too.
      Files.write(scenario, "linger-burst".getBytes(StandardCharsets.UTF_8));
      String endpoint = "http://127.0.0.1:" + otlpPort;
      startApp(
          "demo-producer",
          agentJar,
          endpoint,
          demoClassPath,
          "dev.klat.demo.DemoProducer",
          cluster.bootstrapServers(),
          TOPIC,
          scenario.toString());
      startApp(
          "demo-consumer",
          agentJar,
          endpoint,
          demoClassPath,
          "dev.klat.demo.DemoConsumer",
          cluster.bootstrapServers(),
          TOPIC,
          GROUP,
          scenario.toString());
      startApp(
          "demo-enricher",
          agentJar,
          endpoint,
          demoClassPath,
          "dev.klat.demo.DemoEnricher",
          cluster.bootstrapServers(),
          TOPIC,
          ENRICHER,
          SECOND_TOPIC);
      startApp(
          "demo-billing",
          agentJar,
          endpoint,
          demoClassPath,
          "dev.klat.demo.DemoConsumer",
          cluster.bootstrapServers(),
          SECOND_TOPIC,
          LAST_GROUP,
          scenario.toString(),
          "last-hop");

      int prometheusPort = freePort();
      Path config = writePrometheusConfig(adminPort, cluster.brokers());
      Path storage = Files.createTempDirectory(work, "tsdb");
      start(
          "prometheus",
          List.of(
              prometheus.toString(),
              "--config.file=" + config,
              "--storage.tsdb.path=" + storage,
              "--web.listen-address=127.0.0.1:" + prometheusPort,
              "--enable-feature=exemplar-storage"));
      URI api = URI.create("http://127.0.0.1:" + prometheusPort + "/api/v1/");
      awaitHttp(api.resolve("status/buildinfo"), Duration.ofSeconds(30));

      Map<String, String> pending = queriesToCheck();
      // 4 dashboards' panels and variables plus 25 rules: a parsing slip must not check nothing.
      assertThat(pending).hasSizeGreaterThan(40);
      int checked = pending.size();
      // The queries of records seen through OpenTelemetry instrumentations have data only when a
      // client without klat's agent reports through one; this run's clients all run the agent.
      // They must run without an error, and have data as soon as such records are scraped.
      Map<String, String> opentelemetry = new LinkedHashMap<>();
      pending
          .entrySet()
          .removeIf(
              e ->
                  (e.getValue().contains(Config.OPENTELEMETRY)
                          || e.getValue().contains(OPENTELEMETRY_RULES))
                      && opentelemetry.put(e.getKey(), e.getValue()) == null);
      assertThat(opentelemetry).as("the OpenTelemetry row's queries").hasSizeGreaterThan(3);
      // The clients' own figures (KIP-714) likewise: only a client pushing through a broker with
      // klat's forwarder has them, and this run's brokers have none.
      Map<String, String> clientTelemetry = new LinkedHashMap<>();
      pending
          .entrySet()
          .removeIf(
              e ->
                  e.getValue().contains(Config.CLIENT_TELEMETRY)
                      && clientTelemetry.put(e.getKey(), e.getValue()) == null);
      assertThat(clientTelemetry).as("the client telemetry panels' queries").hasSizeGreaterThan(2);
      // The share groups' queries likewise: only a KafkaShareConsumer with the agent has them, and
      // this run's consumers are consumer groups' (it-tests' ShareGroupIT reads share groups).
      Map<String, String> share = new LinkedHashMap<>();
      pending
          .entrySet()
          .removeIf(
              e ->
                  e.getValue().contains("klat_share_")
                      && share.put(e.getKey(), e.getValue()) == null);
      assertThat(share).as("the share group panels' queries").hasSizeGreaterThan(2);
      long deadline = System.nanoTime() + DATA_DEADLINE.toNanos();
      long started = System.nanoTime();
      while (!pending.isEmpty() && System.nanoTime() < deadline) {
        pending.entrySet().removeIf(e -> hasData(api, e.getValue()));
        if (!pending.isEmpty()) {
          Thread.sleep(2000);
        }
      }
      boolean opentelemetryRecords =
          hasData(api, Config.E2E + "_count{" + Config.OPENTELEMETRY + "}");
      boolean clientsPushing = hasData(api, "klat_collector_client_telemetry_instances > 0");
      boolean shareRecords = hasData(api, "klat_share_records_total > 0");
      for (Map.Entry<String, String> e : share.entrySet()) {
        JsonNode r = get(api.resolve("query?query=" + encode(e.getValue())));
        assertThat(r.path("status").asText())
            .as("%s runs (%s)", e.getKey(), r)
            .isEqualTo("success");
        if (shareRecords && !hasData(api, e.getValue())) {
          pending.put(e.getKey(), e.getValue());
        }
      }
      for (Map.Entry<String, String> e : clientTelemetry.entrySet()) {
        JsonNode r = get(api.resolve("query?query=" + encode(e.getValue())));
        assertThat(r.path("status").asText())
            .as("%s runs (%s)", e.getKey(), r)
            .isEqualTo("success");
        if (clientsPushing && !hasData(api, e.getValue())) {
          pending.put(e.getKey(), e.getValue());
        }
      }
      for (Map.Entry<String, String> e : opentelemetry.entrySet()) {
        JsonNode r = get(api.resolve("query?query=" + encode(e.getValue())));
        assertThat(r.path("status").asText())
            .as("%s runs (%s)", e.getKey(), r)
            .isEqualTo("success");
        if (opentelemetryRecords && !hasData(api, e.getValue())) {
          pending.put(e.getKey(), e.getValue());
        }
      }
      System.out.printf(
          "PrometheusIT: %d queries, %d without data %d s after Prometheus started (%d of records"
              + " seen through OpenTelemetry, %s)%n",
          checked,
          pending.size(),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
          opentelemetry.size(),
          opentelemetryRecords ? "checked for data" : "no such record in this run: checked to run");
      assertThat(pending)
          .as("queries without data after %s (logs in %s)", DATA_DEADLINE, work)
          .isEmpty();

      // Prometheus loaded every rule of our files and evaluated each without an error.
      JsonNode groups = get(api.resolve("rules")).path("data").path("groups");
      List<String> rules = new ArrayList<>();
      for (JsonNode group : groups) {
        for (JsonNode rule : group.path("rules")) {
          rules.add(rule.path("name").asText());
          assertThat(rule.path("health").asText())
              .as("health of rule %s (%s)", rule.path("name").asText(), rule.path("lastError"))
              .isEqualTo("ok");
        }
      }
      assertThat(rules).hasSize(Queries.rules().size());

      // The collector attaches exemplars to the end-to-end and segment histograms only; those are
      // the series the panels with exemplars on read.
      for (String histogram : List.of(Config.E2E, Config.SEGMENT)) {
        long nowSeconds = System.currentTimeMillis() / 1000;
        JsonNode exemplars =
            get(
                api.resolve(
                    "query_exemplars?query="
                        + encode(histogram + "_bucket")
                        + "&start="
                        + (nowSeconds - 600)
                        + "&end="
                        + (nowSeconds + 60)));
        assertThat(exemplars.path("data").findValues("trace_id"))
            .as("exemplars of %s with trace ids, for the link to Tempo", histogram)
            .isNotEmpty()
            .allSatisfy(id -> assertThat(id.asText()).matches("[0-9a-f]{32}"));
      }
    }
  }

  // Every panel, variable and recording rule query as Prometheus can run it; for an alert, each
  // metric it reads (its condition is not met in a healthy run, so the alert itself is empty).
  private static Map<String, String> queriesToCheck() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Queries.Query q : Queries.all()) {
      if (!q.promQl()) {
        continue;
      }
      if (q.kind().equals("alert")) {
        for (String metric : PromQl.metricNames(q.expr())) {
          out.put(
              q.where() + " reads " + metric,
              metric.equals("up") ? "up{job=\"klat-collector\"}" : metric);
        }
      } else {
        out.put(q.where(), PromQl.withGrafanaVariables(q.expr(), RATE_INTERVAL));
      }
    }
    return out;
  }

  private Path writePrometheusConfig(int collectorPort, List<Broker> brokers) throws IOException {
    StringBuilder yml = new StringBuilder();
    yml.append("global:\n  scrape_interval: 2s\n  evaluation_interval: 2s\n");
    yml.append("rule_files:\n");
    for (Path rules : Queries.ruleFiles()) {
      yml.append("  - ").append(rules).append('\n');
    }
    yml.append("scrape_configs:\n");
    yml.append("  - job_name: klat-collector\n    static_configs:\n");
    yml.append("      - targets: ['127.0.0.1:").append(collectorPort).append("']\n");
    yml.append("  - job_name: kafka-broker\n    static_configs:\n");
    for (Broker b : brokers) {
      URI m = b.metricsEndpoint();
      yml.append("      - targets: ['").append(m.getHost()).append(':').append(m.getPort());
      yml.append("']\n        labels:\n          broker: '").append(b.nodeId()).append("'\n");
    }
    Path config = work.resolve("prometheus.yml");
    Files.write(config, yml.toString().getBytes(StandardCharsets.UTF_8));
    return config;
  }

  private void printLogTails() throws IOException {
    for (String name : List.of("collector", "demo-producer", "demo-consumer", "prometheus")) {
      List<String> lines = Files.readAllLines(work.resolve(name + ".log"), StandardCharsets.UTF_8);
      System.out.println("---- last lines of " + name + ".log");
      lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(System.out::println);
    }
  }

  private static boolean hasData(URI api, String query) {
    try {
      JsonNode r = get(api.resolve("query?query=" + encode(query)));
      return r.path("status").asText().equals("success")
          && r.path("data").path("result").size() > 0;
    } catch (IOException e) {
      return false;
    }
  }

  private static JsonNode get(URI uri) throws IOException {
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    c.setConnectTimeout(2000);
    c.setReadTimeout(10000);
    try {
      return Queries.JSON.readTree(c.getInputStream());
    } finally {
      c.disconnect();
    }
  }

  private static void awaitHttp(URI uri, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setConnectTimeout(1000);
        if (c.getResponseCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(200);
    }
    throw new AssertionError(uri + " did not answer in " + timeout);
  }

  private void startApp(
      String name, Path agentJar, String endpoint, String classPath, String main, String... args)
      throws IOException {
    List<String> command =
        AgentCommand.of(agentJar, endpoint, name, classPath, main, List.of(args));
    start(name, command);
  }

  private void start(String name, List<String> command) throws IOException {
    processes.add(
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(work.resolve(name + ".log").toFile())
            .start());
  }

  private static String java() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static Path requireFile(Path path) {
    assertThat(path).as("built by ./mvnw install before this test").exists();
    return path;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static int freePort() {
    return dev.klat.kafka.cluster.LoopbackPorts.free();
  }

  private static String exporters(List<Broker> brokers) {
    StringBuilder out = new StringBuilder();
    for (Broker b : brokers) {
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(b.nodeId()).append('=').append(b.metricsEndpoint());
    }
    return out.toString();
  }
}
