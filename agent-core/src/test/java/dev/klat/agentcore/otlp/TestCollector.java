package dev.klat.agentcore.otlp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.klat.model.ClockSyncHeaders;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.SSLContext;

/**
 * A real OTLP/HTTP receiver on 127.0.0.1: decodes every request with the opentelemetry-proto
 * classes and answers what the test tells it to. {@link #https} makes one that speaks TLS (the
 * JDK's {@code HttpsServer}), with client authentication if asked. Public for the client agent's
 * export tests.
 */
public final class TestCollector implements AutoCloseable {

  /** One request as received. */
  public record Received(
      String path,
      long receivedNanos,
      Map<String, List<String>> headers,
      byte[] rawBody,
      byte[] body,
      ExportTraceServiceRequest traces,
      ExportMetricsServiceRequest metrics) {}

  /** What to answer. */
  public interface Responder {
    void respond(HttpExchange exchange, Received request) throws IOException;
  }

  public static final Responder OK = (exchange, request) -> reply(exchange, 200, new byte[0]);

  /** A responder that holds the request {@code millis} before it answers nothing: a slow server. */
  public static Responder stallsFor(long millis) {
    return (exchange, request) -> sleep(millis);
  }

  /** Sleeps on the server's thread, as a slow server would; an interrupt ends the sleep. */
  public static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final HttpServer server;
  private final String scheme;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  public final BlockingQueue<Received> traces = new LinkedBlockingQueue<>();
  public final BlockingQueue<Received> metrics = new LinkedBlockingQueue<>();
  public final List<Received> all = new CopyOnWriteArrayList<>();
  public final List<Throwable> errors = new CopyOnWriteArrayList<>();
  public volatile Responder traceResponder = OK;
  public volatile Responder metricsResponder = OK;

  public TestCollector() throws IOException {
    this(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), "http");
  }

  private TestCollector(HttpServer server, String scheme) {
    this.server = server;
    this.scheme = scheme;
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /**
   * A collector speaking TLS with {@code context}'s key, on {@code address}, that requires a client
   * certificate trusted by {@code context} when {@code needClientAuth}.
   */
  public static TestCollector https(SSLContext context, boolean needClientAuth, InetAddress address)
      throws IOException {
    return https(context, needClientAuth, address, null);
  }

  /** {@link #https}, speaking only {@code protocols} (such as {@code TLSv1.2}) unless null. */
  public static TestCollector https(
      SSLContext context, boolean needClientAuth, InetAddress address, String[] protocols)
      throws IOException {
    HttpsServer server = HttpsServer.create(new InetSocketAddress(address, 0), 0);
    server.setHttpsConfigurator(
        new HttpsConfigurator(context) {
          @Override
          public void configure(HttpsParameters parameters) {
            javax.net.ssl.SSLParameters ssl = context.getDefaultSSLParameters();
            ssl.setNeedClientAuth(needClientAuth);
            if (protocols != null) {
              ssl.setProtocols(protocols);
            }
            parameters.setSSLParameters(ssl);
          }
        });
    return new TestCollector(server, "https");
  }

  /** {@link #https} on 127.0.0.1. */
  public static TestCollector https(SSLContext context, boolean needClientAuth) throws IOException {
    return https(context, needClientAuth, InetAddress.getLoopbackAddress());
  }

  /** The base URL, by the loopback address's number: {@code http://127.0.0.1:<port>}. */
  public String endpoint() {
    return endpoint(server.getAddress().getAddress().getHostAddress());
  }

  /** The base URL by {@code host}, such as {@code localhost}. */
  public String endpoint(String host) {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return scheme + "://" + h + ":" + server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      byte[] raw;
      try (InputStream in = exchange.getRequestBody()) {
        raw = in.readAllBytes();
      }
      byte[] body = raw;
      if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(raw))) {
          body = in.readAllBytes();
        }
      }
      String path = exchange.getRequestURI().getPath();
      boolean isTraces = path.equals("/v1/traces");
      Received received =
          new Received(
              path,
              System.nanoTime(),
              Map.copyOf(exchange.getRequestHeaders()),
              raw,
              body,
              isTraces ? ExportTraceServiceRequest.parseFrom(body) : null,
              path.equals("/v1/metrics") ? ExportMetricsServiceRequest.parseFrom(body) : null);
      // Recorded before answering: once the client has its answer, the test may look.
      all.add(received);
      (isTraces ? traces : metrics).add(received);
      (isTraces ? traceResponder : metricsResponder).respond(exchange, received);
    } catch (Throwable t) {
      errors.add(t);
      throw t;
    } finally {
      exchange.close();
    }
  }

  public static void reply(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /**
   * Answers {@code status} with the klat collector's clock headers ({@link ClockSyncHeaders}) set
   * to {@code receiveMicros} and {@code sendMicros}, as given.
   */
  public static Responder withClockHeaders(String receiveMicros, String sendMicros, int status) {
    return (exchange, request) -> {
      exchange.getResponseHeaders().set(ClockSyncHeaders.RECEIVE_TIME_MICROS, receiveMicros);
      exchange.getResponseHeaders().set(ClockSyncHeaders.SEND_TIME_MICROS, sendMicros);
      reply(exchange, status, new byte[0]);
    };
  }

  public Received nextTraces(long timeoutMillis) throws InterruptedException {
    return traces.poll(timeoutMillis, TimeUnit.MILLISECONDS);
  }

  public Received nextMetrics(long timeoutMillis) throws InterruptedException {
    return metrics.poll(timeoutMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
