package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.Buckets;
import dev.klat.collector.aggregate.Exposition;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** {@code /metrics} under {@code metrics.max-bytes}, and {@code /readyz}. */
class MetricsBudgetTest {

  // One histogram family of a series per topic, as 20,000 topics of one request made it.
  private static List<Exposition.Family> manyTopics(int topics) {
    List<Exposition.Series> series = new ArrayList<>();
    for (int i = 0; i < topics; i++) {
      long[] counts = new long[Buckets.count()];
      counts[3] = 1;
      series.add(
          new Exposition.Series(
              Map.of("topic", String.format("topic-%05d", i), "group", "g"),
              0,
              counts,
              0.01,
              null));
    }
    return List.of(
        new Exposition.Family(
            "klat_e2e_latency_seconds", "e2e", "seconds", Exposition.Type.HISTOGRAM, series),
        new Exposition.Family(
            "klat_collector_spans_received_total",
            "spans",
            "",
            Exposition.Type.COUNTER,
            List.of(Exposition.Series.scalar(Map.of(), 42))));
  }

  @Test
  void theTextStaysUnderTheBudgetAndCountsTheSeriesItDropped() {
    int budget = 1 << 20;
    for (boolean openMetrics : new boolean[] {false, true}) {
      PrometheusWriter.Written w = PrometheusWriter.write(manyTopics(20_000), openMetrics, budget);

      assertThat(w.text().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(budget);
      assertThat(w.seriesDropped()).isPositive();
      Scrape scrape = Scrape.parse(w.text(), openMetrics); // still well-formed
      assertThat(scrape.eof).isEqualTo(openMetrics);
    }
  }

  @Test
  void aBudgetThatHoldsEverythingDropsNothingAndWritesWhatTheUnboundedWriterDoes() {
    List<Exposition.Family> families = manyTopics(10);
    PrometheusWriter.Written w = PrometheusWriter.write(families, true, 1 << 20);
    assertThat(w.seriesDropped()).isZero();
    assertThat(w.text()).isEqualTo(PrometheusWriter.write(families, true));
  }

  @Test
  void readyzIsReadyWhenMetricsCanBeProducedAndTheCollectorsOwnFamiliesComeFirst()
      throws Exception {
    try (AdminServer admin = server(() -> manyTopics(20_000), 64 * 1024)) {
      HttpResponse<String> ready = get(admin, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body()).startsWith("ready: ");

      HttpResponse<String> metrics = get(admin, "/metrics");
      assertThat(metrics.body().length()).isLessThanOrEqualTo(64 * 1024);
      assertThat(metrics.body()).startsWith("# TYPE klat_collector_spans_received_total counter");
      assertThat(admin.metricsSeriesDropped()).isPositive();
    }
  }

  @Test
  void readyzIsServiceUnavailableWhenMetricsCannotBeProducedAndHealthzStaysLiveness()
      throws Exception {
    Supplier<List<Exposition.Family>> broken =
        () -> {
          throw new IllegalStateException("a part failed");
        };
    try (AdminServer admin = server(broken, 64 * 1024)) {
      HttpResponse<String> ready = get(admin, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body()).contains("/metrics cannot be produced").contains("a part failed");
      assertThat(get(admin, "/healthz").statusCode()).isEqualTo(200);
    }
  }

  private static AdminServer server(Supplier<List<Exposition.Family>> metrics, int maxBytes)
      throws IOException {
    return new AdminServer(
        new InetSocketAddress("127.0.0.1", 0),
        metrics,
        null,
        null,
        List::of,
        Map::of,
        () -> "[]",
        () -> null,
        dev.klat.collector.security.ListenerSecurity.PLAIN,
        maxBytes);
  }

  private static HttpResponse<String> get(AdminServer admin, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + admin.address().getPort() + path))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
