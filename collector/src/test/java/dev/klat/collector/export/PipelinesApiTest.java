package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.aggregate.BreakdownHistory;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.SlowRecord;
import dev.klat.collector.aggregate.TopicGroup;
import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.diagnose.Finding;
import dev.klat.collector.diagnose.PipelineDiagnosis;
import dev.klat.collector.pipeline.ChainFixture;
import dev.klat.collector.pipeline.ChainFixture.Hop;
import dev.klat.collector.pipeline.PipelineNames;
import dev.klat.collector.pipeline.Pipelines;
import dev.klat.collector.pipeline.PipelinesReport;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code /api/pipelines} and {@code /api/diagnosis?pipeline=} answer the contract's shape. */
class PipelinesApiTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ChainFixture CHAINS = new ChainFixture();
  private static final List<String> HOP_DIAGNOSES = new ArrayList<>();
  private static AdminServer server;

  @BeforeAll
  static void start() throws Exception {
    // orders -> enricher -> orders-enriched -> billing, 20 chains; enricher also keeps a changelog.
    for (int i = 0; i < 20; i++) {
      Hop in = CHAINS.record("orders", i, "enricher", i).instances(1, 2).add();
      CHAINS
          .output(in, "orders-enriched", i, "billing", 1)
          .instances(2, 3)
          .segments(1, 1, 30 + i, 1, 1)
          .linkedTo(in)
          .add();
      CHAINS
          .output(in, "enricher-store-changelog", i, "restore", 1)
          .instances(2, 9)
          .linkedTo(in)
          .add();
    }
    server =
        new AdminServer(
            new InetSocketAddress("127.0.0.1", 0),
            List::of,
            new Queries(),
            new BreakdownHistory(CHAINS.ring, 10_000_000_000L, 3_600_000_000_000L, 20),
            List::of,
            Map::of,
            () -> "[]",
            () -> null,
            dev.klat.collector.security.ListenerSecurity.PLAIN,
            AdminServer.DEFAULT_METRICS_MAX_BYTES);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static HttpResponse<String> get(String pathAndQuery) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + server.address().getPort() + pathAndQuery);
    return HTTP.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode getJson(String pathAndQuery) throws Exception {
    HttpResponse<String> response = get(pathAndQuery);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static List<String> fields(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void pipelinesAnswerTheContractsShape() throws Exception {
    JsonNode answer = getJson("/api/pipelines?window=5m");

    assertThat(answer.get("windowSeconds").asDouble()).isEqualTo(300);
    JsonNode p = answer.get("pipelines").get(0);
    assertThat(answer.get("pipelines")).hasSize(1);
    assertThat(fields(p))
        .containsExactly(
            "name",
            "firstTopic",
            "lastGroup",
            "count",
            "e2e",
            "identityViolations",
            "hops",
            "tail");
    assertThat(p.get("name").asText()).isEqualTo("orders->billing");
    assertThat(p.get("count").asInt()).isEqualTo(20);
    assertThat(fields(p.get("e2e"))).containsExactly("p50Seconds", "p99Seconds", "p999Seconds");
    assertThat(p.get("identityViolations").asInt()).isZero();
    JsonNode first = p.get("hops").get(0);
    assertThat(fields(first))
        .containsExactly(
            "index",
            "inputTopic",
            "group",
            "outputTopic",
            "internal",
            "count",
            "e2e",
            "segments",
            "processing");
    assertThat(first.get("outputTopic").asText()).isEqualTo("orders-enriched");
    assertThat(first.get("internal").asBoolean()).isFalse();
    assertThat(first.get("processing").get("p50Seconds").asDouble()).isEqualTo(0.001);
    // The segments of /api/breakdown, with their qualities.
    assertThat(fields(first.get("segments")))
        .containsExactly(
            "produce",
            "publish",
            "commit",
            "catch-up",
            "fetch",
            "publish+commit",
            "fetch-round-trip");
    assertThat(fields(first.get("segments").get("commit")))
        .containsExactly("count", "p50Seconds", "p99Seconds", "quality");
    assertThat(first.get("segments").get("commit").get("quality").get("exact").asInt())
        .isEqualTo(20);
    JsonNode last = p.get("hops").get(1);
    assertThat(last.get("outputTopic").isNull()).isTrue();
    assertThat(last.has("processing")).as("absent on the last hop").isFalse();
    assertThat(p.get("tail").get("hop").asInt()).isEqualTo(2);
    assertThat(p.get("tail").get("segment").asText()).isEqualTo("commit");
    assertThat(p.get("tail").get("part").isNull()).isTrue();
    assertThat(p.get("tail").get("records").asInt()).isEqualTo(1);
    assertThat(p.get("tail").get("share").asDouble()).isBetween(0.7, 0.9);
    JsonNode graph = answer.get("graph");
    assertThat(graph.get("nodes").get(0).toString())
        .isEqualTo("{\"id\":\"topic:orders\",\"kind\":\"topic\",\"name\":\"orders\"}");
    assertThat(graph.get("edges").toString())
        .contains(
            "{\"from\":\"topic:orders\",\"to\":\"group:enricher\",\"kind\":\"reads\"}",
            "{\"from\":\"group:enricher\",\"to\":\"topic:orders-enriched\",\"kind\":\"writes\"}",
            "{\"from\":\"group:enricher\",\"to\":\"topic:enricher-store-changelog\","
                + "\"kind\":\"changelog\"}");
  }

  @Test
  void aPipelinesDiagnosisNamesTheHopTheSegmentAndTheKnob() throws Exception {
    JsonNode answer = getJson("/api/diagnosis?window=5m&pipeline=orders-%3Ebilling");

    assertThat(answer.get("pipeline").asText()).isEqualTo("orders->billing");
    assertThat(answer.get("hop").toString())
        .isEqualTo(
            "{\"index\":2,\"inputTopic\":\"orders-enriched\",\"group\":\"billing\","
                + "\"outputTopic\":null}");
    assertThat(answer.get("segment").asText()).isEqualTo("commit");
    assertThat(HOP_DIAGNOSES).contains("orders-enriched/billing");
    // The hop's findings of the named segment first.
    assertThat(answer.get("report").get("findings").get(0).get("knob").asText())
        .isEqualTo("broker 1 follower fetch");

    HttpResponse<String> unknown = get("/api/diagnosis?pipeline=nope");
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(unknown.body()).contains("no pipeline nope");
  }

  @Test
  void klatDiagnosePipelinePrintsTheHopTheSegmentAndTheKnob() {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    String base = "http://127.0.0.1:" + server.address().getPort();
    int status =
        dev.klat.collector.cli.DiagnoseCommand.run(
            new String[] {"--collector", base, "--pipeline", "orders->billing", "--window", "5m"},
            new java.io.PrintStream(out, true),
            new java.io.PrintStream(err, true));

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString())
        .startsWith("pipeline orders->billing, last 5m: 20 chains, p99 ")
        .contains("in hop 2 (orders-enriched, group billing): commit")
        .contains("1. commit broker 1 follower fetch: 70% of the tail");

    int unknown =
        dev.klat.collector.cli.DiagnoseCommand.run(
            new String[] {"--collector", base, "--pipeline", "nope"},
            new java.io.PrintStream(out, true),
            new java.io.PrintStream(err, true));
    assertThat(unknown).isEqualTo(2);
    assertThat(err.toString()).contains("no pipeline nope");
  }

  private static final class Queries implements AdminServer.RecentQueries {
    @Override
    public RecentBreakdowns.Summary summarise(String topic, String group, long windowNanos) {
      return CHAINS.ring.summarise(topic, group, windowNanos, Long.MAX_VALUE / 4);
    }

    @Override
    public DiagnosisReport diagnose(String topic, String group, long windowNanos) {
      HOP_DIAGNOSES.add(topic + "/" + group);
      Finding fetch = new Finding("fetch", "fetch.max.wait.ms", 0.2, 0.01, Map.of(), "s", 5);
      Finding commit =
          new Finding("commit", "broker 1 follower fetch", 0.7, 0.03, Map.of(), "s", 5);
      return new DiagnosisReport(20, 0.05, 5, 0.05, List.of(fetch, commit), null, 0);
    }

    @Override
    public List<SlowRecord> slowest(String topic, String group, long windowNanos, int limit) {
      return List.of();
    }

    @Override
    public List<TopicGroup> pairs(long windowNanos, int max) {
      return List.of();
    }

    @Override
    public PipelinesReport pipelines(long windowNanos) {
      return Pipelines.report(CHAINS.window(), PipelineNames.NONE, 50, windowNanos);
    }

    @Override
    public PipelineDiagnosis diagnosePipeline(String name, long windowNanos) {
      PipelinesReport.Pipeline p = Pipelines.find(CHAINS.window(), PipelineNames.NONE, name);
      if (p == null) {
        throw new IllegalArgumentException("no pipeline " + name + " in the window");
      }
      return PipelineDiagnosis.of(p, (topic, group) -> diagnose(topic, group, windowNanos));
    }
  }
}
