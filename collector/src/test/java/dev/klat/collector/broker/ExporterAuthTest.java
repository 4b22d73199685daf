package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.klat.testsupport.tls.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exporter scrapes over https with the CA of a PEM file, with basic or bearer authentication. */
class ExporterAuthTest {
  private static final String BODY =
      "kafka_server_replicamanager_leadercount 3.0\n"; // one line the parser knows

  @TempDir Path dir;
  private TestPki pki;
  private HttpsServer server;
  private final AtomicReference<String> expected = new AtomicReference<>();
  private URI endpoint;

  @BeforeEach
  void startServer() throws Exception {
    pki = TestPki.create(dir.resolve("pki"), "exporter CA");
    TestPki.Issued cert = pki.leaf("localhost").server().issue();
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(cert.keyStore())) {
      store.load(in, TestPki.STORE_PASSWORD.toCharArray());
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, TestPki.STORE_PASSWORD.toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);
    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.createContext(
        "/metrics",
        exchange -> {
          String auth = exchange.getRequestHeaders().getFirst("Authorization");
          boolean ok = expected.get() == null || expected.get().equals(auth);
          byte[] body = (ok ? BODY : "no").getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(ok ? 200 : 401, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    endpoint = URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/metrics");
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  private Reading read(ExporterAuth auth) throws IOException {
    return new ExporterSource(endpoint, 2000, 2000, auth).read(System::nanoTime);
  }

  @Test
  void basicAuthenticationOverHttpsWithThePemCa() throws Exception {
    Path password = Files.writeString(dir.resolve("password"), "pa:ss word\n");
    expected.set(
        "Basic "
            + Base64.getEncoder()
                .encodeToString("klat:pa:ss word".getBytes(StandardCharsets.UTF_8)));
    ExporterAuth auth =
        ExporterAuth.of(
            "klat",
            SecretFile.read("brokers.exporter-password-file", password.toString()),
            null,
            pki.caPem().toString());
    assertThat(read(auth)).isNotNull();
    assertThat(auth.toString()).doesNotContain("pa:ss");

    ExporterAuth wrong =
        ExporterAuth.of(
            "other",
            SecretFile.read("brokers.exporter-password-file", password.toString()),
            null,
            pki.caPem().toString());
    assertThatThrownBy(() -> read(wrong)).hasMessageContaining("HTTP 401");
  }

  @Test
  void aBearerTokenIsReadAgainWhenItsFileChanges() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "first-token\n");
    ExporterAuth auth =
        ExporterAuth.of(
            "",
            null,
            SecretFile.read("brokers.exporter-token-file", token.toString()),
            pki.caPem().toString());
    expected.set("Bearer first-token");
    assertThat(read(auth)).isNotNull();

    Files.writeString(token, "second-token");
    Files.setLastModifiedTime(token, FileTime.from(Instant.now().plusSeconds(5)));
    expected.set("Bearer first-token");
    assertThatThrownBy(() -> read(auth)).hasMessageContaining("HTTP 401");
    expected.set("Bearer second-token");
    assertThat(read(auth)).isNotNull();
  }

  @Test
  void anExporterWhoseCaIsNotTrustedIsRefused() throws Exception {
    TestPki other = TestPki.create(dir.resolve("other"), "another CA");
    assertThatThrownBy(() -> read(ExporterAuth.of("", null, null, other.caPem().toString())))
        .isInstanceOf(SSLHandshakeException.class);
    assertThatThrownBy(() -> ExporterAuth.of("", null, null, dir.resolve("none.pem").toString()))
        .hasMessageContaining("brokers.exporter-certificate");
  }

  @Test
  void credentialsComeInPairsAndOneKindAtATime() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "x");
    SecretFile file = SecretFile.read("brokers.exporter-password-file", secret.toString());
    assertThatThrownBy(() -> ExporterAuth.of("klat", null, null, ""))
        .hasMessageContaining("go together");
    assertThatThrownBy(() -> ExporterAuth.of("klat", file, file, ""))
        .hasMessageContaining("one or the other");
    Files.writeString(secret, "");
    assertThatThrownBy(() -> SecretFile.read("brokers.exporter-token-file", secret.toString()))
        .hasMessageContaining("brokers.exporter-token-file")
        .hasMessageContaining("empty");
  }
}
