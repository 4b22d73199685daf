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
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
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

class HistoryApiTest {
  private static final long INTERVAL_NANOS = 10_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long EPOCH_MS = 1_800_000_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final RecentBreakdowns RECENT = new RecentBreakdowns(1_000);
  private static AdminServer server;

  private static JoinedBreakdown joined(String topic, long produceNanos, long e2eNanos) {
    long s = 1_000_000_000L;
    Instants i =
        Instants.builder()
            .send(s)
            .drain(s + produceNanos)
            .commit(s + e2eNanos, EstimationMethod.FETCH_RESPONSE_BOUND)
            .fetchRequest(s + e2eNanos)
            .fetchResponse(s + e2eNanos)
            .poll(s + e2eNanos)
            .build();
    return new JoinedBreakdown(
        new RecordKey(topic, 0, 0),
        "billing",
        1,
        2,
        3,
        4,
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
        ConsumerEvidence.UNKNOWN);
  }

  @BeforeAll
  static void start() throws Exception {
    BreakdownHistory history = new BreakdownHistory(RECENT, INTERVAL_NANOS, 3_600_000_000_000L, 20);
    // Interval 1: orders 10 to 19 ms end to end; interval 2: orders 30 ms, payments 70 ms.
    for (int ms = 10; ms < 20; ms++) {
      RECENT.add(joined("orders", 2 * MS, ms * MS), 1 + ms);
    }
    history.sample(INTERVAL_NANOS, EPOCH_MS + 10_000);
    RECENT.add(joined("orders", 4 * MS, 30 * MS), INTERVAL_NANOS + 1);
    RECENT.add(joined("payments", 5 * MS, 70 * MS), INTERVAL_NANOS + 2);
    history.sample(2 * INTERVAL_NANOS, EPOCH_MS + 20_000);
    server =
        new AdminServer(
            new InetSocketAddress("127.0.0.1", 0),
            List::of,
            new FixedTimeQueries(2 * INTERVAL_NANOS),
            history,
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
  void aPairsPointsComeOldestFirstWithTheirIntervalsFigures() throws Exception {
    JsonNode answer = getJson("/api/history?topic=orders&group=billing");

    assertThat(answer.get("topic").asText()).isEqualTo("orders");
    assertThat(answer.get("group").asText()).isEqualTo("billing");
    assertThat(answer.get("intervalSeconds").asDouble()).isEqualTo(10);
    assertThat(answer.get("retentionSeconds").asDouble()).isEqualTo(3600);
    JsonNode points = answer.get("points");
    assertThat(points).hasSize(2);
    JsonNode first = points.get(0);
    assertThat(first.get("endEpochMs").asLong()).isEqualTo(EPOCH_MS + 10_000);
    assertThat(first.get("count").asInt()).isEqualTo(10);
    assertThat(first.at("/e2e/p50Seconds").asDouble()).isEqualTo(0.014);
    assertThat(first.at("/e2e/p99Seconds").asDouble()).isEqualTo(0.019);
    assertThat(first.at("/p99Tail/meanSeconds/produce").asDouble()).isEqualTo(0.002);
    assertThat(first.at("/p99Tail/meanSeconds/publish").isNull()).isTrue();
    assertThat(first.at("/p99Tail/meanSeconds/publish+commit").asDouble()).isEqualTo(0.017);
    assertThat(points.get(1).get("endEpochMs").asLong()).isEqualTo(EPOCH_MS + 20_000);
    assertThat(points.get(1).at("/e2e/p999Seconds").asDouble()).isEqualTo(0.03);
  }

  @Test
  void withoutTopicAndGroupItIsAllTogetherAndSinceSkipsOlderPoints() throws Exception {
    JsonNode all = getJson("/api/history");
    assertThat(all.get("topic").isNull()).isTrue();
    assertThat(all.get("points")).extracting(p -> p.get("count").asInt()).containsExactly(10, 2);
    assertThat(all.at("/points/1/e2e/p99Seconds").asDouble()).isEqualTo(0.07);

    JsonNode since = getJson("/api/history?since=" + (EPOCH_MS + 10_000));
    assertThat(since.get("points")).hasSize(1);
    assertThat(since.at("/points/0/endEpochMs").asLong()).isEqualTo(EPOCH_MS + 20_000);
    assertThat(getJson("/api/history?topic=none&group=billing").get("points")).isEmpty();
  }

  @Test
  void aPointReadsLikeTheBreakdownOfTheSameInterval() throws Exception {
    JsonNode breakdown = getJson("/api/breakdown?topic=orders&group=billing&window=10s");
    JsonNode latest = getJson("/api/history?topic=orders&group=billing").at("/points/1");

    assertThat(breakdown.get("count")).isEqualTo(latest.get("count"));
    assertThat(latest.get("e2e")).isEqualTo(breakdown.get("e2e"));
    assertThat(latest.at("/p99Tail/meanSeconds")).isEqualTo(breakdown.at("/p99Tail/meanSeconds"));
    assertThat(latest.at("/p99Tail/meanSeconds/produce").asDouble()).isEqualTo(0.004);
  }

  @Test
  void badParametersAreAnsweredWith400AndTheReason() throws Exception {
    HttpResponse<String> topicOnly = get("/api/history?topic=orders");
    assertThat(topicOnly.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(topicOnly.body()).get("error").asText())
        .contains("give both topic and group, or neither");
    assertThat(get("/api/history?group=billing").statusCode()).isEqualTo(400);
    for (String since : List.of("yesterday", "-5", "1.5")) {
      HttpResponse<String> bad = get("/api/history?since=" + since);
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(JSON.readTree(bad.body()).get("error").asText())
          .isEqualTo("since must be a time in milliseconds since the Unix epoch: " + since);
    }
  }

  /** The recent breakdowns as the server sees them at one fixed instant. */
  private record FixedTimeQueries(long nowNanos) implements AdminServer.RecentQueries {
    @Override
    public RecentBreakdowns.Summary summarise(String topic, String group, long windowNanos) {
      return RECENT.summarise(topic, group, windowNanos, nowNanos);
    }

    @Override
    public DiagnosisReport diagnose(String topic, String group, long windowNanos) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<SlowRecord> slowest(String topic, String group, long windowNanos, int limit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<TopicGroup> pairs(long windowNanos, int max) {
      throw new UnsupportedOperationException();
    }
  }
}
