package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agentcore.auth.ExportHeaders;
import dev.klat.agentcore.otlp.FailureReason;
import dev.klat.agentcore.otlp.TestCollector;
import dev.klat.model.MetricDef;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A collector that refuses the agent's token: dropped, counted by reason, explained once. */
@Timeout(20)
class TelemetryCredentialsTest {

  private static final String TOKEN = "t0ps3cr3t-token";

  @Test
  void aRefusedTokenIsExplainedOnceCountedByReasonAndItsSpansDropped() throws Exception {
    List<String> lines = new CopyOnWriteArrayList<>();
    List<String> onceKeys = new CopyOnWriteArrayList<>();
    ExportLog log =
        new ExportLog() {
          @Override
          public void warn(String message) {
            lines.add(message);
          }

          @Override
          public void warnOnce(String key, String message) {
            onceKeys.add(key);
            lines.add(message);
          }
        };
    try (TestCollector collector = new TestCollector()) {
      collector.traceResponder = (exchange, r) -> TestCollector.reply(exchange, 401, new byte[0]);
      ExportSettings settings =
          ExportSettings.builder()
              .endpoint(collector.endpoint().replace("://", "://app:hunter2pw@"))
              .headers(ExportHeaders.parse("X-Scope-OrgID=team-a,X-Api-Key=" + TOKEN))
              .serviceName("orders")
              .hostName("h")
              .spanFlushIntervalMillis(50)
              .maxSpansPerRequest(1)
              .metricsIntervalMillis(300)
              .build();
      Telemetry telemetry = Telemetry.start(settings, log);
      try {
        for (int i = 0; i < 3; i++) {
          telemetry.offer(new SpanRecord().setTraceId(1, i + 1).setSpanId(i + 1).setName("s"));
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (telemetry.droppedSpans() < 3 && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertThat(telemetry.droppedSpans()).as("OTLP: a 401 is dropped, not retried").isEqualTo(3);
        assertThat(collector.traces).hasSize(3);

        Map<String, Long> failed = new HashMap<>();
        while (failed.getOrDefault(FailureReason.UNAUTHORIZED.id, 0L) < 3
            && System.nanoTime() < deadline) {
          TestCollector.Received metrics = collector.nextMetrics(1000);
          if (metrics == null) {
            continue;
          }
          for (Metric m :
              metrics.metrics().getResourceMetrics(0).getScopeMetrics(0).getMetricsList()) {
            if (m.getName().equals(MetricDef.AGENT_EXPORT_REQUESTS_FAILED.name())) {
              for (NumberDataPoint p : m.getSum().getDataPointsList()) {
                failed.put(p.getAttributes(0).getValue().getStringValue(), p.getAsInt());
              }
            }
          }
        }
        assertThat(failed)
            .containsEntry(FailureReason.UNAUTHORIZED.id, 3L)
            .containsEntry(FailureReason.UNAVAILABLE.id, 0L)
            .containsEntry(FailureReason.REJECTED.id, 0L);
        String sent = collector.traces.peek().headers().get("Authorization").get(0);
        assertThat(sent).startsWith("Basic ");
        assertThat(collector.traces.peek().headers().get("X-api-key")).containsExactly(TOKEN);
      } finally {
        telemetry.shutdown(1000);
      }
    }
    assertThat(onceKeys).containsExactly("export." + FailureReason.UNAUTHORIZED.id);
    // Besides the drop warning, one line about the 401, whatever the number of refusals.
    assertThat(lines.stream().filter(l -> l.contains("401")))
        .singleElement()
        .asString()
        .contains("refused the credentials (HTTP 401): check klat.export.headers");
    assertThat(String.join("\n", lines)).doesNotContain(TOKEN).doesNotContain("hunter2pw");
  }
}
