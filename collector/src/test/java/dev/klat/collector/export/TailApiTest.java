package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.aggregate.BreakdownHistory;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.SlowRecord;
import dev.klat.collector.aggregate.TopicGroup;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.diagnose.Finding;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.TailTraceIds;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin API's answers with tail records in the window: sampled figures stay sampled, tail
 * records are counted and split apart, listed with their capture and their (derived) trace id.
 */
class TailApiTest {
  private static final long MS = 1_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final RecentBreakdowns RECENT = new RecentBreakdowns(1_000);
  private static AdminServer server;

  // Partial tail records (no D, S or P) need tail-join's model change to be built; these are full
  // breakdowns, a producer-only one being one without a group.
  private static JoinedBreakdown joined(
      int offset, String group, long produceNanos, long e2eNanos, Capture capture) {
    long s = 1_000_000_000L;
    Instants i =
        Instants.builder()
            .send(s)
            .drain(s + produceNanos)
            .append(s + produceNanos + MS, EstimationMethod.BROKER_PROBE)
            .commit(s + produceNanos + 2 * MS, EstimationMethod.BROKER_PROBE)
            .fetchRequest(s + e2eNanos)
            .fetchResponse(s + e2eNanos)
            .poll(s + e2eNanos)
            .build();
    boolean derived = capture == Capture.TAIL;
    long hash = TailTraceIds.topicHash("orders");
    return new JoinedBreakdown(
        new RecordKey("orders", 0, offset),
        group,
        derived ? TailTraceIds.high(hash, 0, offset) : 1,
        derived ? TailTraceIds.low(hash, 0, offset) : 2,
        3,
        group == null ? 0 : 4,
        Breakdown.compute(i),
        new ClockOffset("a", "b", 0, 0, 0, 0),
        null,
        Set.of(),
        false,
        1,
        -1,
        -1,
        -1,
        ProducerEvidence.UNKNOWN,
        ConsumerEvidence.UNKNOWN,
        capture);
  }

  @BeforeAll
  static void start() throws Exception {
    for (int ms = 1; ms <= 100; ms++) {
      RECENT.add(joined(ms, "billing", 2 * MS, ms * MS, Capture.SAMPLED), 1);
    }
    // Three tail records, 400 ms of produce in 500 ms; one flagged by its producer alone.
    RECENT.add(joined(1_000, "billing", 400 * MS, 500 * MS, Capture.TAIL), 1);
    RECENT.add(joined(1_001, "billing", 400 * MS, 500 * MS, Capture.TAIL), 1);
    RECENT.add(joined(1_002, null, 400 * MS, 600 * MS, Capture.TAIL), 1);
    server =
        new AdminServer(
            new InetSocketAddress("127.0.0.1", 0),
            List::of,
            new Queries(),
            new BreakdownHistory(RECENT, 10_000_000_000L, 3_600_000_000_000L, 20),
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

  @Test
  void theBreakdownKeepsItsFiguresSampledAndSplitsTheTailApart() throws Exception {
    JsonNode answer = getJson("/api/breakdown?topic=orders");

    assertThat(answer.get("capture").asText()).isEqualTo("sampled");
    assertThat(answer.get("count").asInt()).isEqualTo(100);
    assertThat(answer.at("/e2e/p99Seconds").asDouble()).isEqualTo(0.099);
    assertThat(answer.at("/segments/produce/p99Seconds").asDouble()).isEqualTo(0.002);
    JsonNode tail = answer.get("tail");
    assertThat(tail.get("capture").asText()).isEqualTo("tail");
    assertThat(tail.get("count").asInt()).isEqualTo(3);
    assertThat(tail.get("full").asInt()).isEqualTo(2);
    assertThat(tail.get("producerOnly").asInt()).isEqualTo(1);
    assertThat(tail.get("consumerOnly").asInt()).isZero();
    assertThat(tail.at("/e2e/count").asInt()).isEqualTo(3);
    assertThat(tail.at("/e2e/p50Seconds").asDouble()).isEqualTo(0.5);
    JsonNode produce = tail.at("/segments/produce");
    assertThat(produce.get("count").asInt()).isEqualTo(3);
    assertThat(produce.get("p50Seconds").asDouble()).isEqualTo(0.4);
    assertThat(produce.get("meanSeconds").asDouble()).isEqualTo(0.4);
    // 1200 ms of produce in 1600 ms end to end.
    assertThat(produce.get("shareOfE2e").asDouble()).isEqualTo(0.75);
    assertThat(produce.get("shareRecords").asInt()).isEqualTo(3);
    assertThat(tail.at("/segments/produce+publish/p50Seconds").asDouble()).isEqualTo(0.401);
    assertThat(tail.at("/segments/publish+commit/count").asInt()).isEqualTo(3);
    // For a group, the producer-only record is in it: every group reads the record.
    assertThat(getJson("/api/breakdown?topic=orders&group=billing").at("/tail/count").asInt())
        .isEqualTo(3);
    assertThat(getJson("/api/breakdown?topic=orders&group=audit").at("/tail/count").asInt())
        .isEqualTo(1);
  }

  @Test
  void theSlowestListTailRecordsWithCaptureAndDerivedTraceIds() throws Exception {
    JsonNode answer = getJson("/api/slowest?topic=orders&limit=4");
    JsonNode records = answer.get("records");

    assertThat(answer.get("capture").isNull()).isTrue();
    assertThat(records).hasSize(4);
    JsonNode producerOnly = records.get(0);
    assertThat(producerOnly.get("capture").asText()).isEqualTo("tail");
    assertThat(producerOnly.get("topic").asText()).isEqualTo("orders");
    assertThat(producerOnly.get("group").isNull()).isTrue();
    assertThat(producerOnly.get("offset").asLong()).isEqualTo(1_002);
    long hash = TailTraceIds.topicHash("orders");
    assertThat(producerOnly.get("traceId").asText())
        .isEqualTo(
            JoinedBreakdown.traceIdHex(
                TailTraceIds.high(hash, 0, 1_002), TailTraceIds.low(hash, 0, 1_002)));
    assertThat(producerOnly.get("traceIdDerived").asBoolean()).isTrue();
    assertThat(producerOnly.at("/segments/produce/seconds").asDouble()).isEqualTo(0.4);
    assertThat(producerOnly.at("/combined/produce+publish/seconds").asDouble()).isEqualTo(0.401);
    assertThat(producerOnly.at("/combined/publish+commit/quality").asText()).isEqualTo("exact");
    JsonNode sampled = records.get(3);
    assertThat(sampled.get("capture").asText()).isEqualTo("sampled");
    assertThat(sampled.get("traceIdDerived").asBoolean()).isFalse();
    assertThat(sampled.get("e2eSeconds").asDouble()).isEqualTo(0.1);

    JsonNode tailOnly = getJson("/api/slowest?topic=orders&capture=tail");
    assertThat(tailOnly.get("capture").asText()).isEqualTo("tail");
    assertThat(tailOnly.get("records")).hasSize(3);
    assertThat(getJson("/api/slowest?capture=sampled&limit=200").get("records")).hasSize(100);
    HttpResponse<String> bad = get("/api/slowest?capture=slow");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(bad.body()).get("error").asText())
        .isEqualTo("capture must be sampled, tail or opentelemetry: slow");
  }

  @Test
  void theDiagnosisSaysHowManyRecordsEachFindingIsComputedFrom() throws Exception {
    JsonNode answer = getJson("/api/diagnosis?topic=orders");

    assertThat(answer.get("tailRecords").asInt()).isEqualTo(12);
    assertThat(answer.get("tailCaptured").asInt()).isEqualTo(10);
    assertThat(answer.at("/findings/0/records").asInt()).isEqualTo(11);
  }

  private static final class Queries implements AdminServer.RecentQueries {
    @Override
    public RecentBreakdowns.Summary summarise(String topic, String group, long windowNanos) {
      return RECENT.summarise(topic, group, windowNanos, 2);
    }

    @Override
    public DiagnosisReport diagnose(String topic, String group, long windowNanos) {
      Finding f = new Finding("publish", "broker 1 request queue", 0.8, 0.4, Map.of(), "s", 11);
      return new DiagnosisReport(100, 0.099, 12, 0.5, List.of(f), null, 10);
    }

    @Override
    public List<SlowRecord> slowest(String topic, String group, long windowNanos, int limit) {
      return RECENT.slowest(topic, group, windowNanos, 2, limit);
    }

    @Override
    public List<SlowRecord> slowest(
        String topic, String group, Capture capture, long windowNanos, int limit) {
      return RECENT.slowest(topic, group, capture, windowNanos, 2, limit);
    }

    @Override
    public List<TopicGroup> pairs(long windowNanos, int max) {
      return RECENT.busiestPairs(windowNanos, 2, max);
    }
  }
}
