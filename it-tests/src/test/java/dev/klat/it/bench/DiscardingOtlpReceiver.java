package dev.klat.it.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An OTLP/HTTP endpoint for the benchmark suite's exporting variants (klat, and the OpenTelemetry
 * agent with its exporters on): reads each request's body and answers 200 with an empty protobuf
 * response (a valid {@code Export*ServiceResponse}) on every path, {@code /v1/traces}, {@code
 * /v1/metrics} and {@code /v1/logs}. Unlike the tests' {@code OtlpReceiver} it keeps nothing: klat
 * sampling every record, or the OpenTelemetry agent tracing every record, sends millions of spans
 * per run, which parsed and kept would fill this JVM's heap.
 */
final class DiscardingOtlpReceiver implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  DiscardingOtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
    executor = Executors.newFixedThreadPool(2);
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            long read = 0;
            byte[] buffer = new byte[16384];
            try (InputStream body = exchange.getRequestBody()) {
              for (int n; (n = body.read(buffer)) > 0; ) {
                read += n;
              }
            }
            requests.incrementAndGet();
            bytes.addAndGet(read);
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
          }
        });
    server.start();
  }

  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  long requests() {
    return requests.get();
  }

  long bytes() {
    return bytes.get();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
