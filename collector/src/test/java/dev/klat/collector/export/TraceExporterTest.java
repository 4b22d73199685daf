package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TraceExporterTest {
  @Test
  void breakdownsReachAnOtlpHttpEndpointAsProtobufTraces() throws Exception {
    BlockingQueue<byte[]> bodies = new LinkedBlockingQueue<>();
    BlockingQueue<String> paths = new LinkedBlockingQueue<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          paths.add(exchange.getRequestURI().getPath());
          bodies.add(exchange.getRequestBody().readAllBytes());
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    try (TraceExporter exporter =
        new TraceExporter("http://127.0.0.1:" + server.getAddress().getPort() + "/", 8)) {
      exporter.offer(BreakdownSpansTest.joinLogAppendTimeRecord());
      byte[] body = bodies.poll(20, TimeUnit.SECONDS);
      assertThat(body).isNotNull();
      assertThat(paths.poll()).isEqualTo("/v1/traces");
      ResourceSpans rs = ExportTraceServiceRequest.parseFrom(body).getResourceSpans(0);
      assertThat(rs.getResource().getAttributesList())
          .extracting(KeyValue::getKey)
          .contains("service.name");
      assertThat(rs.getScopeSpans(0).getScope().getName()).isEqualTo("dev.klat.collector");
      assertThat(rs.getScopeSpans(0).getSpansList()).hasSize(6);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (exporter.exported() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(exporter.exported()).isEqualTo(1);
      assertThat(exporter.dropped()).isZero();
    } finally {
      server.stop(0);
    }
  }

  @Test
  void anHttpsEndpointGetsTheHeadersAndTheClientCertificateAndIsTrustedByItsCa(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    dev.klat.testsupport.tls.TestPki pki = dev.klat.testsupport.tls.TestPki.create(dir, "tempo-ca");
    dev.klat.testsupport.tls.TestPki.Issued tempo = pki.leaf("localhost").server().issue();
    dev.klat.testsupport.tls.TestPki.Issued collector = pki.leaf("collector").client().issue();
    BlockingQueue<String> seen = new LinkedBlockingQueue<>();
    com.sun.net.httpserver.HttpsServer server =
        com.sun.net.httpserver.HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(
        dev.klat.collector.security.ServerTls.load(
                tempo.certificatePem(), tempo.keyPem(), pki.caPem())
            .httpsConfigurator(dev.klat.collector.security.ClientAuth.NEED));
    server.createContext(
        "/",
        exchange -> {
          javax.net.ssl.SSLSession session =
              ((com.sun.net.httpserver.HttpsExchange) exchange).getSSLSession();
          seen.add(
              exchange.getRequestHeaders().getFirst("X-Scope-OrgID")
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization")
                  + " "
                  + ((java.security.cert.X509Certificate) session.getPeerCertificates()[0])
                      .getSubjectX500Principal()
                      .getName());
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    java.util.Map<String, String> headers =
        TraceExporter.parseHeaders(
            "traces.headers", "X-Scope-OrgID=klat,Authorization=Bearer%20a+b=");
    TraceExporter exporter =
        new TraceExporter(
            new TraceExporter.Settings(
                "https://localhost:" + server.getAddress().getPort(),
                8,
                headers,
                pki.caPem(),
                collector.certificatePem(),
                collector.keyPem()));
    try {
      exporter.offer(BreakdownSpansTest.joinLogAppendTimeRecord());
      assertThat(seen.poll(20, TimeUnit.SECONDS))
          .isEqualTo("klat Bearer a+b= O=klat tests,CN=collector");
    } finally {
      server.stop(0);
      exporter.close();
    }
  }

  @Test
  void badHeadersAreNamedByPositionNotByValue() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> TraceExporter.parseHeaders("traces.headers", "a=1,secret-without-key"))
        .hasMessage("traces.headers: pair 2 is not key=value with a header name as key");
  }

  @Test
  void anUnreachableEndpointDropsAndCountsInsteadOfBlockingTheJoin() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (TraceExporter exporter = new TraceExporter("http://127.0.0.1:" + closedPort, 1)) {
      for (int i = 0; i < 50; i++) {
        exporter.offer(BreakdownSpansTest.joinLogAppendTimeRecord());
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (exporter.dropped() < 50 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(exporter.dropped()).isEqualTo(50);
      assertThat(exporter.exported()).isZero();
    }
  }
}
