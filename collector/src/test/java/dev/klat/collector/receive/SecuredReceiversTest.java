package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.security.AuthCounts;
import dev.klat.collector.security.BearerTokens;
import dev.klat.collector.security.ClientAuth;
import dev.klat.collector.security.ListenerSecurity;
import dev.klat.collector.security.ServerTls;
import dev.klat.collector.security.TlsClients;
import dev.klat.testsupport.tls.TestPki;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OTLP receivers behind real TLS (a throw-away CA): client certificates as {@code need} and
 * {@code want} ask, a rotated certificate seen by the next handshake, and bearer tokens over HTTP
 * and gRPC.
 */
class SecuredReceiversTest {
  @TempDir static Path dir;
  private static TestPki pki;
  private static TestPki.Issued server;
  private static TestPki.Issued client;
  private static Path tokensFile;

  private final OtlpIngest ingest =
      new OtlpIngest(
          new Correlator(
              new Correlator.Settings(10_000_000_000L, 1000, 60_000_000_000L, 100),
              System::nanoTime,
              BrokerInstants.logAppendTime(),
              b -> {}),
          new AgentMetrics(100, 60_000_000_000L));
  private final AuthCounts counts = new AuthCounts();
  private OtlpHttpReceiver http;
  private OtlpGrpcReceiver grpc;

  @BeforeAll
  static void pki() throws IOException {
    pki = TestPki.create(dir.resolve("pki"), "receivers-ca");
    server = pki.leaf("localhost").server().fileName("server").issue();
    client = pki.leaf("agent").client().issue();
    tokensFile = dir.resolve("tokens");
    Files.writeString(tokensFile, "# name=token\nagents=agents-token-1\n");
  }

  @AfterEach
  void close() {
    if (http != null) {
      http.close();
    }
    if (grpc != null) {
      grpc.close();
    }
  }

  private ServerTls tls(boolean clientCa) {
    return ServerTls.load(server.chainPem(), server.keyPem(), clientCa ? pki.caPem() : null);
  }

  private OtlpHttpReceiver http(ListenerSecurity security) throws IOException {
    http =
        new OtlpHttpReceiver(
            new InetSocketAddress("127.0.0.1", 0),
            new ReceiverLimits(1 << 20, 2),
            ingest,
            security);
    return http;
  }

  private HttpResponse<String> post(SSLContext tls, String authorization) throws Exception {
    HttpClient c = HttpClient.newBuilder().sslContext(tls).build();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create("https://127.0.0.1:" + http.address().getPort() + "/v1/traces"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return c.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void needAcceptsATrustedClientCertificateAndRefusesAClientWithout() throws Exception {
    http(new ListenerSecurity("otlp-http", tls(true), ClientAuth.NEED, null, counts));

    assertThat(post(TlsClients.context(pki, client), null).statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> post(TlsClients.context(pki, null), null))
        .isInstanceOf(IOException.class);
    TestPki stranger = TestPki.create(dir.resolve("stranger"), "another-ca");
    TestPki.Issued strangerClient = stranger.leaf("intruder").client().issue();
    SSLContext untrusted = TlsClients.context(pki, null);
    // A certificate of another CA: the server's trust is in pki, the client's key from stranger.
    untrusted = mixed(stranger, strangerClient);
    SSLContext finalUntrusted = untrusted;
    assertThatThrownBy(() -> post(finalUntrusted, null)).isInstanceOf(IOException.class);
  }

  // Trusts the receivers' CA, presents a certificate of another CA.
  private static SSLContext mixed(TestPki other, TestPki.Issued otherClient) throws Exception {
    javax.net.ssl.KeyManagerFactory keys =
        javax.net.ssl.KeyManagerFactory.getInstance(
            javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
    java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(otherClient.keyStore())) {
      store.load(in, TestPki.STORE_PASSWORD.toCharArray());
    }
    keys.init(store, TestPki.STORE_PASSWORD.toCharArray());
    javax.net.ssl.TrustManagerFactory trust =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    java.security.KeyStore trusted = java.security.KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(pki.trustStore())) {
      trusted.load(in, TestPki.STORE_PASSWORD.toCharArray());
    }
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  @Test
  void wantAcceptsClientsWithAndWithoutACertificate() throws Exception {
    http(new ListenerSecurity("otlp-http", tls(true), ClientAuth.WANT, null, counts));

    assertThat(post(TlsClients.context(pki, client), null).statusCode()).isEqualTo(200);
    assertThat(post(TlsClients.context(pki, null), null).statusCode()).isEqualTo(200);
  }

  @Test
  void aReplacedCertificateIsWhatTheNextHandshakeSeesAndABrokenOneIsNot() throws Exception {
    Path certDir = dir.resolve("rotating");
    TestPki rotating = TestPki.create(certDir, "rotating-ca");
    TestPki.Issued first = rotating.leaf("localhost").server().fileName("collector").issue();
    ServerTls tls = ServerTls.load(first.certificatePem(), first.keyPem(), null);
    http(new ListenerSecurity("otlp-http", tls, ClientAuth.NONE, null, counts));
    int port = http.address().getPort();
    BigInteger firstSerial = TlsClients.serverCertificate(rotating, port).getSerialNumber();
    assertThat(firstSerial).isEqualTo(first.certificate().getSerialNumber());

    // The same files, rewritten by the next issue: as cert-manager or a secret update does.
    TestPki.Issued second = rotating.leaf("localhost").server().fileName("collector").issue();
    tls.reloadIfChanged();
    assertThat(TlsClients.serverCertificate(rotating, port).getSerialNumber())
        .isEqualTo(second.certificate().getSerialNumber());

    // A key that does not fit the certificate (half-way through a copy): the second stays.
    Files.copy(
        pki.leaf("other").issue().keyPem(),
        second.keyPem(),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    tls.reloadIfChanged();
    long[] failures = {0};
    tls.failures((setting, n) -> failures[0] += n);
    assertThat(failures[0]).isEqualTo(1);
    assertThat(TlsClients.serverCertificate(rotating, port).getSerialNumber())
        .isEqualTo(second.certificate().getSerialNumber());
  }

  @Test
  void tokensRefuseMissingAndUnknownWith401AndCountEachResult() throws Exception {
    BearerTokens tokens = BearerTokens.load("otlp.auth-tokens-file", tokensFile);
    http(new ListenerSecurity("otlp-http", tls(false), ClientAuth.NONE, tokens, counts));
    SSLContext tls = TlsClients.context(pki, null);

    HttpResponse<String> missing = post(tls, null);
    assertThat(missing.statusCode()).isEqualTo(401);
    assertThat(missing.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"klat\"");
    HttpResponse<String> unknown = post(tls, "Bearer agents-token-2");
    assertThat(unknown.statusCode()).isEqualTo(401);
    assertThat(unknown.headers().firstValue("WWW-Authenticate").orElseThrow())
        .contains("invalid_token");
    assertThat(post(tls, "Bearer agents-token-1").statusCode()).isEqualTo(200);
    assertThat(post(tls, "Bearer agents-token-1").statusCode()).isEqualTo(200);
    // An export of an agent's usual size without a token: the 401 arrives, not a reset.
    HttpResponse<String> large =
        HttpClient.newBuilder()
            .sslContext(tls)
            .build()
            .send(
                HttpRequest.newBuilder(
                        URI.create("https://127.0.0.1:" + http.address().getPort() + "/v1/traces"))
                    .header("Content-Type", "application/x-protobuf")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[400 * 1024]))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(large.statusCode()).isEqualTo(401);

    assertThat(counts.counts())
        .containsExactlyInAnyOrder(
            new AuthCounts.Count("otlp-http", "missing", "", 2),
            new AuthCounts.Count("otlp-http", "unknown", "", 1),
            new AuthCounts.Count("otlp-http", "accepted", "agents", 2));
  }

  @Test
  void grpcOverTlsAnswersUnauthenticatedWithoutAnAcceptedToken() throws Exception {
    BearerTokens tokens = BearerTokens.load("otlp.auth-tokens-file", tokensFile);
    grpc =
        new OtlpGrpcReceiver(
            new InetSocketAddress("127.0.0.1", 0),
            new ReceiverLimits(1 << 20, 2),
            ingest,
            new ListenerSecurity("otlp-grpc", tls(true), ClientAuth.NEED, tokens, counts));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("localhost", grpc.address().getPort())
            .sslContext(
                GrpcSslContexts.forClient()
                    .trustManager(pki.caPem().toFile())
                    .keyManager(client.certificatePem().toFile(), client.keyPem().toFile())
                    .build())
            .build();
    try {
      GrpcExport.Answer without = GrpcExport.traces(channel, new byte[0]);
      assertThat(without.status().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      Channel wrong = ClientInterceptors.intercept(channel, bearer("nope"));
      assertThat(GrpcExport.traces(wrong, new byte[0]).status().getCode())
          .isEqualTo(Status.Code.UNAUTHENTICATED);
      Channel right = ClientInterceptors.intercept(channel, bearer("agents-token-1"));
      assertThat(GrpcExport.traces(right, new byte[0]).status().getCode())
          .isEqualTo(Status.Code.OK);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    assertThat(counts.counts())
        .containsExactlyInAnyOrder(
            new AuthCounts.Count("otlp-grpc", "missing", "", 1),
            new AuthCounts.Count("otlp-grpc", "unknown", "", 1),
            new AuthCounts.Count("otlp-grpc", "accepted", "agents", 1));
  }

  private static ClientInterceptor bearer(String token) {
    Metadata.Key<String> key = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    return new ClientInterceptor() {
      @Override
      public <Q, A> ClientCall<Q, A> interceptCall(
          MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(
            next.newCall(method, options)) {
          @Override
          public void start(Listener<A> listener, Metadata headers) {
            headers.put(key, "Bearer " + token);
            super.start(listener, headers);
          }
        };
      }
    };
  }
}
