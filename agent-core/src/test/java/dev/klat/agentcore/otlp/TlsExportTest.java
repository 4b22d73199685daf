package dev.klat.agentcore.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.klat.agentcore.auth.ExportHeaders;
import dev.klat.agentcore.auth.ExportTls;
import dev.klat.agentcore.clock.FixedTime;
import dev.klat.agentcore.log.CapturedLog;
import dev.klat.agentcore.otlp.OtlpHttpSender.Outcome;
import dev.klat.agentcore.otlp.OtlpHttpSender.Result;
import dev.klat.testsupport.tls.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exporter's credentials over real TLS: a JDK {@code HttpsServer} with certificates of a
 * throw-away CA, the sender trusting only what {@code klat.export.certificate} names.
 */
@Timeout(20)
class TlsExportTest {

  private static final String TOKEN = "s3cr3t-t0ken-value";
  private static final byte[] BODY = new byte[] {0x0a, 0x00};

  @TempDir static Path dir;
  private static TestPki pki;
  private static TestPki otherPki;
  private static TestPki.Issued server;
  private static TestPki.Issued expiredServer;

  private final FixedTime time = new FixedTime(1_700_000_000_000_000_000L);
  private TestCollector collector;

  @BeforeAll
  static void issue() {
    pki = TestPki.create(dir.resolve("pki"), "klat test CA");
    otherPki = TestPki.create(dir.resolve("other"), "another CA");
    server = pki.leaf("localhost").server().issue();
    expiredServer = pki.leaf("old").server().expired().issue();
  }

  @AfterEach
  void close() {
    if (collector != null) {
      collector.close();
    }
  }

  private static SSLContext serverContext(TestPki.Issued issued, boolean trustClients)
      throws Exception {
    char[] password = TestPki.STORE_PASSWORD.toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(issued.keyStore())) {
      keys.load(in, password);
    }
    KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    km.init(keys, password);
    TrustManagerFactory tm = null;
    if (trustClients) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(pki.trustStore())) {
        trust.load(in, password);
      }
      tm = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tm.init(trust);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(km.getKeyManagers(), tm == null ? null : tm.getTrustManagers(), null);
    return context;
  }

  private OtlpHttpSender sender(String endpoint, Map<String, String> headers, ExportTls tls)
      throws IOException {
    return new OtlpHttpSender(endpoint, headers, tls, false, "9.9", time);
  }

  private static ExportTls trusting(TestPki ca) {
    return ExportTls.load(ca.caPem().toString(), null, null);
  }

  @Test
  void exportSucceedsTrustingOnlyTheGivenCa() throws Exception {
    collector = TestCollector.https(serverContext(server, false), false);

    Result result =
        sender(collector.endpoint("localhost"), Map.of(), trusting(pki))
            .sendTraces(BODY, 2000, 2000);

    assertThat(result.outcome).as(result.toString()).isEqualTo(Outcome.SUCCESS);
    assertThat(collector.nextTraces(1000)).isNotNull();
  }

  @ParameterizedTest(name = "{0} key, {1}")
  @CsvSource({"RSA, pkcs8", "EC, pkcs8", "RSA, traditional", "EC, traditional"})
  void mutualTlsWorksWithPkcs8AndTraditionalKeys(String keyType, String form) throws Exception {
    TestPki.Leaf leaf = pki.leaf("client-" + keyType + "-" + form).client();
    TestPki.Issued client = (keyType.equals("EC") ? leaf.ec() : leaf).issue();
    Path key = form.equals("pkcs8") ? client.keyPem() : client.traditionalKeyPem();
    assertThat(Files.readString(key))
        .contains(
            form.equals("pkcs8")
                ? "BEGIN PRIVATE KEY"
                : keyType.equals("EC") ? "BEGIN EC PRIVATE KEY" : "BEGIN RSA PRIVATE KEY");
    collector = TestCollector.https(serverContext(server, true), true);
    ExportTls tls =
        ExportTls.load(pki.caPem().toString(), client.chainPem().toString(), key.toString());

    Result result =
        sender(collector.endpoint("localhost"), Map.of(), tls).sendTraces(BODY, 2000, 2000);

    assertThat(result.outcome).as(result.toString()).isEqualTo(Outcome.SUCCESS);
    assertThat(collector.nextTraces(1000)).isNotNull();
  }

  @Test
  void aCollectorThatWantsAClientCertificateAndGetsNoneIsCountedWithoutAnException()
      throws Exception {
    collector = TestCollector.https(serverContext(server, true), true);
    OtlpHttpSender sender = sender(collector.endpoint("localhost"), Map.of(), trusting(pki));

    Result result = sender.sendTraces(BODY, 2000, 2000);

    // The JDK's server refuses after the client's part of the handshake, so the client sees a
    // closed connection rather than an alert it could name: counted, retried, nothing delivered.
    assertThat(result.outcome).as(result.toString()).isEqualTo(Outcome.RETRYABLE);
    assertThat(sender.failures().total()).isEqualTo(1);
    assertThat(collector.all).isEmpty();
  }

  @Test
  void aServerCertificateOfAnotherCaIsCountedAndExplainedOnceWithoutAnException() throws Exception {
    collector = TestCollector.https(serverContext(server, false), false);
    OtlpHttpSender sender = sender(collector.endpoint("localhost"), Map.of(), trusting(otherPki));

    Result first = sender.sendTraces(BODY, 2000, 2000);
    Result second = sender.sendTraces(BODY, 2000, 2000);

    assertThat(first.outcome).isEqualTo(Outcome.RETRYABLE);
    assertThat(first.reason).isEqualTo(FailureReason.TLS_UNTRUSTED);
    assertThat(first.advice)
        .startsWith("TLS handshake with localhost:")
        .contains("the server certificate is not trusted: check klat.export.certificate");
    assertThat(second.reason).isEqualTo(FailureReason.TLS_UNTRUSTED);
    assertThat(second.advice).isNull();
    assertThat(sender.failures().count(FailureReason.TLS_UNTRUSTED)).isEqualTo(2);
    assertThat(collector.all).isEmpty();
  }

  @Test
  void anExpiredServerCertificateIsCountedAndExplainedOnce() throws Exception {
    collector = TestCollector.https(serverContext(expiredServer, false), false);
    OtlpHttpSender sender = sender(collector.endpoint("localhost"), Map.of(), trusting(pki));

    Result first = sender.sendTraces(BODY, 2000, 2000);
    Result second = sender.sendTraces(BODY, 2000, 2000);

    assertThat(first.reason).as(first.toString()).isEqualTo(FailureReason.TLS_EXPIRED);
    assertThat(first.outcome).isEqualTo(Outcome.RETRYABLE);
    assertThat(first.advice).contains("has expired or is not valid yet");
    assertThat(second.advice).isNull();
    assertThat(sender.failures().count(FailureReason.TLS_EXPIRED)).isEqualTo(2);
  }

  @Test
  void aCertificateThatDoesNotNameTheHostFailsTheHandshake() throws Exception {
    InetAddress ipv6 = InetAddress.getByName("::1");
    collector = tryHttps(ipv6);
    assumeThat(collector).as("IPv6 loopback available").isNotNull();
    // The certificate names localhost and 127.0.0.1, not ::1; and an application that turned host
    // name checks off JVM-wide does not turn off the exporter's.
    OtlpHttpSender sender = sender(collector.endpoint(), Map.of(), trusting(pki));
    HostnameVerifier before = HttpsURLConnection.getDefaultHostnameVerifier();
    HttpsURLConnection.setDefaultHostnameVerifier((host, session) -> true);
    Result result;
    try {
      result = sender.sendTraces(BODY, 2000, 2000);
    } finally {
      HttpsURLConnection.setDefaultHostnameVerifier(before);
    }

    assertThat(result.reason).as(result.toString()).isEqualTo(FailureReason.TLS_HOSTNAME);
    assertThat(result.advice).contains("does not name the host of klat.endpoint");
  }

  private TestCollector tryHttps(InetAddress address) throws Exception {
    if (!(address instanceof Inet6Address)) {
      return null;
    }
    try {
      return TestCollector.https(serverContext(server, false), false, address);
    } catch (IOException e) {
      return null;
    }
  }

  @Test
  void anHttpsUrlToAPlainHttpPortIsExplained() throws Exception {
    // A plain HTTP server answers the ClientHello with an HTTP error, as a collector's plain port
    // does.
    try (ServerSocket plain = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread answer =
          new Thread(
              () -> {
                try (Socket socket = plain.accept()) {
                  socket.getInputStream().read(new byte[512]);
                  socket
                      .getOutputStream()
                      .write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes());
                } catch (IOException ignored) {
                  // The test fails on the client's side if this does.
                }
              });
      answer.start();

      Result result =
          sender("https://localhost:" + plain.getLocalPort(), Map.of(), trusting(pki))
              .sendTraces(BODY, 2000, 2000);

      assertThat(result.reason).as(result.toString()).isEqualTo(FailureReason.TLS_NOT_TLS);
      assertThat(result.advice).contains("does not speak TLS");
      answer.join(2000);
    }
  }

  @Test
  void a401IsDroppedCountedAndExplainedOnce() throws Exception {
    collector = new TestCollector();
    collector.traceResponder =
        (exchange, request) -> TestCollector.reply(exchange, 401, new byte[0]);
    OtlpHttpSender sender =
        sender(collector.endpoint(), ExportHeaders.parse("Authorization=Bearer%20" + TOKEN), null);

    Result first = sender.sendTraces(BODY, 1000, 1000);
    Result second = sender.sendTraces(BODY, 1000, 1000);

    assertThat(first.outcome).as("OTLP: 401 is not retryable").isEqualTo(Outcome.REJECTED);
    assertThat(first.reason).isEqualTo(FailureReason.UNAUTHORIZED);
    assertThat(first.advice)
        .contains("refused the credentials (HTTP 401): check klat.export.headers");
    assertThat(second.advice).isNull();
    assertThat(sender.failures().count(FailureReason.UNAUTHORIZED)).isEqualTo(2);
  }

  @Test
  void headersAreSentWithTheirValuesUrlDecoded() throws Exception {
    collector = new TestCollector();
    Map<String, String> headers =
        ExportHeaders.parse(" Authorization = Bearer%20" + TOKEN + " , X-Scope=a%2Cb+c%3D ,");

    assertThat(sender(collector.endpoint(), headers, null).sendTraces(BODY, 1000, 1000).outcome)
        .isEqualTo(Outcome.SUCCESS);

    TestCollector.Received received = collector.nextTraces(1000);
    assertThat(received.headers().get("Authorization")).containsExactly("Bearer " + TOKEN);
    assertThat(received.headers().get("X-scope")).containsExactly("a,b+c=");
  }

  @Test
  void userInfoInTheEndpointIsSentAsBasicAuthAndNeverShown() throws Exception {
    collector = new TestCollector();
    String endpoint = collector.endpoint().replace("://", "://us%40er:pa%3Ass@");
    OtlpHttpSender sender = sender(endpoint, Map.of(), null);

    assertThat(sender.sendTraces(BODY, 1000, 1000).outcome).isEqualTo(Outcome.SUCCESS);

    String expected =
        "Basic "
            + Base64.getEncoder().encodeToString("us@er:pa:ss".getBytes(StandardCharsets.UTF_8));
    assertThat(collector.nextTraces(1000).headers().get("Authorization")).containsExactly(expected);
    assertThat(sender.endpoint()).isEqualTo(collector.endpoint());
  }

  @Test
  void anAuthorizationHeaderWinsOverUserInfo() throws Exception {
    collector = new TestCollector();
    String endpoint = collector.endpoint().replace("://", "://user:pass@");
    OtlpHttpSender sender =
        sender(endpoint, ExportHeaders.parse("authorization=Bearer%20" + TOKEN), null);

    sender.sendTraces(BODY, 1000, 1000);

    Map<String, java.util.List<String>> received = collector.nextTraces(1000).headers();
    assertThat(received.get("Authorization")).containsExactly("Bearer " + TOKEN);
  }

  @Test
  void noCredentialReachesTheLogOfAnyFailure() throws Exception {
    CapturedLog log = new CapturedLog();
    collector = TestCollector.https(serverContext(server, true), true);
    String endpoint = collector.endpoint("localhost").replace("://", "://admin:hunter2pw@");
    Map<String, String> headers = ExportHeaders.parse("Authorization=Bearer%20" + TOKEN);
    // Wrong CA, then no client certificate, then 401 on plain HTTP: every advice and detail logged.
    OtlpHttpSender untrusted = sender(endpoint, headers, trusting(otherPki));
    OtlpHttpSender noClient = sender(endpoint, headers, trusting(pki));
    TestCollector plain = new TestCollector();
    try {
      plain.traceResponder = (exchange, request) -> TestCollector.reply(exchange, 401, new byte[0]);
      OtlpHttpSender unauthorized =
          sender(plain.endpoint().replace("://", "://admin:hunter2pw@"), headers, null);
      for (OtlpHttpSender sender : new OtlpHttpSender[] {untrusted, noClient, unauthorized}) {
        Result result = sender.sendTraces(BODY, 2000, 2000);
        log.log.warn(result.advice);
        log.log.warn("export failed: " + result + " to " + sender.endpoint());
      }
    } finally {
      plain.close();
    }

    assertThat(log.lines(dev.klat.agentcore.log.AgentLog.Level.WARN)).hasSize(6);
    assertThat(log.text())
        .contains("klat.export.certificate", "HTTP 401")
        .doesNotContain(TOKEN, "hunter2pw", "admin:", "Basic ");
  }

  @Test
  void theJvmsDefaultTlsIsUntouched() throws Exception {
    SSLContext defaultBefore = SSLContext.getDefault();
    SSLSocketFactory httpsDefaultBefore = HttpsURLConnection.getDefaultSSLSocketFactory();
    collector = TestCollector.https(serverContext(server, false), false);

    Result ours =
        sender(collector.endpoint("localhost"), Map.of(), trusting(pki))
            .sendTraces(BODY, 2000, 2000);

    assertThat(ours.outcome).isEqualTo(Outcome.SUCCESS);
    assertThat(SSLContext.getDefault()).isSameAs(defaultBefore);
    assertThat(HttpsURLConnection.getDefaultSSLSocketFactory()).isSameAs(httpsDefaultBefore);
    // The application's own HTTPS still trusts what the JVM trusts, not klat's CA.
    HttpsURLConnection application =
        (HttpsURLConnection)
            new URL(collector.endpoint("localhost") + "/v1/traces").openConnection();
    application.setConnectTimeout(2000);
    application.setReadTimeout(2000);
    application.setRequestMethod("POST");
    application.setDoOutput(true);
    try (OutputStream out = application.getOutputStream()) {
      out.write(BODY);
      org.assertj.core.api.Assertions.fail("the JVM's default trust took klat's CA");
    } catch (SSLHandshakeException expected) {
      // As it should be.
    } finally {
      application.disconnect();
    }
  }
}
