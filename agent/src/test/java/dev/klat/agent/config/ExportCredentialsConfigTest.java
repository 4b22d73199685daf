package dev.klat.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.config.AgentConfig.Status;
import dev.klat.agentcore.log.AgentLog.Level;
import dev.klat.agentcore.log.CapturedLog;
import dev.klat.testsupport.tls.TestPki;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** klat.export.headers and the TLS files as the agent reads them at start-up. */
class ExportCredentialsConfigTest {

  private static final String TOKEN = "t0ps3cr3t-token";

  @TempDir static Path dir;
  private static TestPki pki;
  private static TestPki.Issued client;

  private final CapturedLog captured = new CapturedLog();

  @BeforeAll
  static void issue() {
    pki = TestPki.create(dir.resolve("pki"), "klat test CA");
    client = pki.leaf("app").client().ec().issue();
  }

  private AgentConfig load(Map<String, String> sys, Map<String, String> env) {
    return AgentConfig.load(sys, env, captured.log);
  }

  @Test
  void headersAndTlsFilesAreReadAndNeverShown() {
    AgentConfig config =
        load(
            Map.of(
                "klat.endpoint",
                "https://collector:4318",
                "klat.export.headers",
                "Authorization=Bearer%20" + TOKEN),
            Map.of(
                "KLAT_EXPORT_CERTIFICATE", pki.caPem().toString(),
                "KLAT_EXPORT_CLIENT_CERTIFICATE", client.chainPem().toString(),
                "KLAT_EXPORT_CLIENT_KEY", client.traditionalKeyPem().toString()));

    assertThat(config.status()).as(captured.text()).isEqualTo(Status.ACTIVE);
    assertThat(config.exportHeaders())
        .containsExactly(Map.entry("Authorization", "Bearer " + TOKEN));
    assertThat(config.exportTls().hasTrustedCertificates()).isTrue();
    assertThat(config.exportTls().hasClientCertificate()).isTrue();
    assertThat(config.describe())
        .contains("export.headers=1 (hidden)", "export.tls=ca+client-certificate")
        .doesNotContain(TOKEN);
    assertThat(captured.text()).isEmpty();
  }

  @Test
  void aMalformedHeaderListStopsTheAgentWithoutQuotingIt() {
    AgentConfig config = load(Map.of("klat.export.headers", "X-Ok=1,Bearer " + TOKEN), Map.of());

    assertThat(config.status()).isEqualTo(Status.INVALID);
    assertThat(captured.lines(Level.ERROR)).hasSize(1);
    assertThat(captured.text())
        .contains("klat.export.headers", "entry 2 of 2 has no '='", "(hidden, ")
        .doesNotContain(TOKEN);
  }

  @Test
  void otelExporterVariablesAreNotRead() {
    AgentConfig config =
        load(
            Map.of(),
            Map.of(
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Bearer%20" + TOKEN,
                "OTEL_EXPORTER_OTLP_CERTIFICATE",
                pki.caPem().toString()));

    assertThat(config.exportHeaders()).isEmpty();
    assertThat(config.exportTls()).isNull();
  }

  @Test
  void aClientCertificateWithoutItsKeyStopsTheAgent() {
    AgentConfig config =
        load(Map.of("klat.export.client.certificate", client.chainPem().toString()), Map.of());

    assertThat(config.status()).isEqualTo(Status.INVALID);
    assertThat(captured.text()).contains("klat.export.client.key is not set");
  }

  @Test
  void anEncryptedOrMissingFileIsOneErrorNamingTheSetting() {
    AgentConfig config =
        load(Map.of("klat.export.certificate", dir.resolve("nope.pem").toString()), Map.of());

    assertThat(config.status()).isEqualTo(Status.INVALID);
    assertThat(captured.lines(Level.ERROR))
        .singleElement()
        .asString()
        .contains("klat.export.certificate", "nope.pem", "no such file");
  }

  @Test
  void userInfoOfABadEndpointIsMaskedAndCredentialsOverHttpAreWarnedAbout() {
    AgentConfig invalid =
        load(Map.of("klat.endpoint", "https://user:hunter2pw@host:4318/?q"), Map.of());
    assertThat(invalid.status()).isEqualTo(Status.INVALID);
    assertThat(captured.text()).contains("***@host").doesNotContain("hunter2pw");

    CapturedLog second = new CapturedLog();
    AgentConfig plain =
        AgentConfig.load(
            Map.of(
                "klat.endpoint",
                "http://user:hunter2pw@host:4318",
                "klat.export.headers",
                "Authorization=Bearer%20" + TOKEN),
            Map.of(),
            second.log);
    assertThat(plain.status()).isEqualTo(Status.ACTIVE);
    assertThat(second.text())
        .contains("credentials go in clear text", "sets Authorization, which wins")
        .doesNotContain("hunter2pw")
        .doesNotContain(TOKEN);
  }
}
