package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.log.AgentLog.Level;
import dev.klat.agentcore.log.CapturedLog;
import dev.klat.agentcore.otlp.FailureReason;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.agentcore.otlp.TestCollector;
import dev.klat.model.SettingValueException;
import dev.klat.testsupport.tls.TestPki;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The probe's export credentials: the client agent's settings, read and reported alike. */
@Timeout(20)
class ProbeCredentialsTest {

  private static final String TOKEN = "t0ps3cr3t-token";

  @TempDir Path dir;

  private static ProbeSettings load(Map<String, String> system, Map<String, String> env) {
    Properties properties = new Properties();
    properties.putAll(system);
    return ProbeSettings.load(properties, env);
  }

  @Test
  void readsTheHeadersAndTlsFilesButNoOtelVariable() {
    TestPki pki = TestPki.create(dir.resolve("pki"), "klat test CA");
    TestPki.Issued broker = pki.leaf("broker-1").client().issue();

    ProbeSettings settings =
        load(
            Map.of("klat.endpoint", "https://collector:4318"),
            Map.of(
                "KLAT_EXPORT_HEADERS", "Authorization=Bearer%20" + TOKEN,
                "KLAT_EXPORT_CERTIFICATE", pki.caPem().toString(),
                "KLAT_EXPORT_CLIENT_CERTIFICATE", broker.chainPem().toString(),
                "KLAT_EXPORT_CLIENT_KEY", broker.traditionalKeyPem().toString(),
                "OTEL_EXPORTER_OTLP_HEADERS", "X-Other=backend"));

    assertThat(settings.exportHeaders)
        .containsExactly(Map.entry("Authorization", "Bearer " + TOKEN));
    assertThat(settings.exportTls.hasTrustedCertificates()).isTrue();
    assertThat(settings.exportTls.hasClientCertificate()).isTrue();
    assertThat(settings.warnings).isEmpty();
    assertThat(load(Map.of(), Map.of("OTEL_EXPORTER_OTLP_HEADERS", "a=b")).exportHeaders).isEmpty();
  }

  @Test
  void badCredentialsKeepTheProbeOffWithoutShowingThem() {
    assertThatThrownBy(() -> load(Map.of("klat.export.headers", "Bearer " + TOKEN), Map.of()))
        .isInstanceOf(SettingValueException.class)
        .hasMessageContaining("klat.export.headers")
        .hasMessageContaining("has no '='")
        .hasMessageNotContaining(TOKEN);
    assertThatThrownBy(
            () -> load(Map.of("klat.endpoint", "https://admin:hunter2pw@host:4318/?x"), Map.of()))
        .hasMessageContaining("***@host")
        .hasMessageNotContaining("hunter2pw");
    assertThatThrownBy(() -> load(Map.of("klat.export.client.key", "/k.pem"), Map.of()))
        .hasMessageContaining("klat.export.client.certificate");
    ProbeSettings plain =
        load(Map.of("klat.endpoint", "http://admin:hunter2pw@host:4318"), Map.of());
    assertThat(plain.warnings)
        .singleElement()
        .asString()
        .contains("credentials go in clear text")
        .doesNotContain("hunter2pw");
  }

  @Test
  void aRefusedTokenIsLoggedOnceWithWhatToCheck() throws Exception {
    CapturedLog captured = new CapturedLog();
    try (TestCollector collector = new TestCollector()) {
      collector.metricsResponder = (exchange, r) -> TestCollector.reply(exchange, 401, new byte[0]);
      ProbeSettings settings =
          load(
              Map.of(
                  "klat.endpoint",
                  collector.endpoint().replace("://", "://admin:hunter2pw@"),
                  "klat.export.headers",
                  "X-Api-Key=" + TOKEN),
              Map.of());
      OtlpHttpSender sender =
          new OtlpHttpSender(
              settings.endpoint,
              settings.exportHeaders,
              settings.exportTls,
              false,
              "test",
              TimeSource.SYSTEM);
      ProbeExporter exporter =
          new ProbeExporter(
              new EventRing(1024),
              new PartitionTimelines(16, 16, 1000),
              new LogsEncoder("b", 1, "test"),
              sender,
              settings,
              captured.log);

      for (int i = 0; i < 3; i++) {
        OtlpHttpSender.Result result = sender.sendLogs(new byte[0], 1000, 1000);
        assertThat(result.reason).isEqualTo(FailureReason.UNAUTHORIZED);
        exporter.report(result);
      }

      assertThat(sender.failures().count(FailureReason.UNAUTHORIZED)).isEqualTo(3);
      assertThat(collector.all.get(0).headers().get("X-api-key")).containsExactly(TOKEN);
    }
    assertThat(captured.lines(Level.WARN))
        .singleElement()
        .asString()
        .contains("broker probe: the collector at http://127.0.0.1:")
        .contains("refused the credentials (HTTP 401): check klat.export.headers")
        .doesNotContain(TOKEN)
        .doesNotContain("hunter2pw");
  }
}
