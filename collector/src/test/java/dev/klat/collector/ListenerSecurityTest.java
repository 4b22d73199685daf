package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.security.TlsClients;
import dev.klat.testsupport.tls.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole collector with its listeners secured by settings: the admin port over HTTPS with a read
 * token (its probes and page open), the start-up warning for a listener reachable from other hosts,
 * and a port in use named with its setting.
 */
class ListenerSecurityTest {
  @TempDir static Path dir;
  private static TestPki pki;
  private static TestPki.Issued server;
  private static Path adminTokens;

  @BeforeAll
  static void files() throws IOException {
    pki = TestPki.create(dir.resolve("pki"), "collector-ca");
    server = pki.leaf("localhost").server().fileName("collector").issue();
    adminTokens = dir.resolve("admin-tokens");
    Files.writeString(adminTokens, "prometheus=read-token-1\n");
  }

  private static Map<String, String> settings(String... keyValues) {
    Map<String, String> m = new HashMap<>();
    m.put("otlp.http.port", "0");
    m.put("otlp.grpc.port", "0");
    m.put("admin.port", "0");
    for (int i = 0; i < keyValues.length; i += 2) {
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return m;
  }

  @Test
  void theAdminPortNeedsItsTokenForMetricsAndApiButNotForProbesOrThePage() throws Exception {
    try (Collector collector =
        Collector.start(
            CollectorConfig.of(
                settings(
                    "tls.cert-file", server.certificatePem().toString(),
                    "tls.key-file", server.keyPem().toString(),
                    "admin.auth-tokens-file", adminTokens.toString())))) {
      HttpClient http = HttpClient.newBuilder().sslContext(TlsClients.context(pki, null)).build();
      String base = "https://127.0.0.1:" + collector.adminAddress().getPort();
      for (String open : List.of("/healthz", "/readyz", "/")) {
        assertThat(get(http, base + open, null).statusCode()).as(open).isEqualTo(200);
      }
      assertThat(get(http, base + "/readyz", null).body()).startsWith("ready");
      for (String guarded : List.of("/metrics", "/api/stats", "/api/nothing")) {
        HttpResponse<String> refused = get(http, base + guarded, null);
        assertThat(refused.statusCode()).as(guarded).isEqualTo(401);
        assertThat(refused.headers().firstValue("WWW-Authenticate").orElseThrow())
            .startsWith("Bearer");
      }
      assertThat(get(http, base + "/api/stats", "Bearer read-token-2").statusCode()).isEqualTo(401);
      HttpResponse<String> metrics = get(http, base + "/metrics", "Bearer read-token-1");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .contains(
              "klat_collector_auth_requests_total{listener=\"admin\",result=\"missing\",token=\"\"} 3",
              "klat_collector_auth_requests_total{listener=\"admin\",result=\"unknown\",token=\"\"} 1",
              "klat_collector_auth_requests_total{listener=\"admin\",result=\"accepted\","
                  + "token=\"prometheus\"} 1",
              "klat_collector_reload_failures_total{setting=\"tls.cert-file\"} 0")
          .doesNotContain("read-token-1");
      // ./klat diagnose over HTTPS with the CA and a token file (as Prometheus's credentials_file).
      Path tokenFile = dir.resolve("read-token");
      Files.writeString(tokenFile, "read-token-1\n");
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
      String[] args = {"--collector", base, "--ca-file", pki.caPem().toString()};
      assertThat(
              dev.klat.collector.cli.DiagnoseCommand.run(
                  args, new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)))
          .isEqualTo(1);
      assertThat(err.toString()).contains("answered 401").contains("--token-file");
      String[] withToken = {
        "--collector", base, "--ca-file", pki.caPem().toString(), "--token-file=" + tokenFile
      };
      err.reset();
      assertThat(
              dev.klat.collector.cli.DiagnoseCommand.run(
                  withToken,
                  new java.io.PrintStream(out, true),
                  new java.io.PrintStream(err, true)))
          .as(err.toString())
          .isZero();
      // The OTLP port speaks TLS with the same certificate, which the JVM's own CAs do not trust.
      URI otlp = URI.create("https://127.0.0.1:" + collector.otlpAddress().getPort() + "/");
      assertThatThrownBy(
              () ->
                  HttpClient.newHttpClient()
                      .send(
                          HttpRequest.newBuilder(otlp).build(),
                          HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
    }
  }

  private static HttpResponse<String> get(HttpClient http, String url, String authorization)
      throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url));
    if (authorization != null) {
      r.header("Authorization", authorization);
    }
    return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aListenerReachableFromOtherHostsWithoutTokensIsOneWarningLine() throws Exception {
    List<String> warnings = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel() == Level.WARNING) {
              warnings.add(record.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger log = Logger.getLogger(Collector.class.getName());
    log.addHandler(capture);
    try (Collector collector =
        Collector.start(
            CollectorConfig.of(
                settings(
                    "admin.host", "0.0.0.0",
                    "tls.cert-file", server.certificatePem().toString(),
                    "tls.key-file", server.keyPem().toString())))) {
      assertThat(collector.adminAddress().getAddress().isAnyLocalAddress()).isTrue();
    } finally {
      log.removeHandler(capture);
    }
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0))
        .startsWith("The admin port (/metrics, /api/*) listens on 0.0.0.0:")
        .contains("reachable from other hosts, without tokens (admin.auth-tokens-file)")
        .doesNotContain("without TLS");
  }

  @Test
  void aPortInUseIsNamedWithItsAddressAndTheSettingThatMovesIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      assertThatThrownBy(
              () -> Collector.start(CollectorConfig.of(settings("otlp.http.port", "" + port))))
          .isInstanceOf(IOException.class)
          .hasMessage(
              "cannot listen on 127.0.0.1:" + port + " (otlp.http.port): address already in use");
      assertThatThrownBy(
              () -> Collector.start(CollectorConfig.of(settings("otlp.grpc.port", "" + port))))
          .hasMessage(
              "cannot listen on 127.0.0.1:" + port + " (otlp.grpc.port): address already in use");
    }
  }

  @Test
  void settingsThatDoNotGoTogetherStopStartUpNamingTheirKeys() {
    assertThatThrownBy(() -> CollectorConfig.of(settings("tls.cert-file", "/x.pem")))
        .hasMessageContaining("tls.cert-file and tls.key-file go together");
    assertThatThrownBy(() -> CollectorConfig.of(settings("admin.tls-client-auth", "need")))
        .hasMessageContaining("admin.tls-client-auth=need needs tls.client-ca-file");
    assertThatThrownBy(
            () ->
                Collector.start(
                    CollectorConfig.of(
                        settings(
                            "tls.cert-file", dir.resolve("missing.pem").toString(),
                            "tls.key-file", server.keyPem().toString()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tls.cert-file " + dir.resolve("missing.pem"));
  }
}
