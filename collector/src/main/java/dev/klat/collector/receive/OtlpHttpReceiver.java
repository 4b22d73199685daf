package dev.klat.collector.receive;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.klat.collector.security.ListenerSecurity;
import dev.klat.model.ClockSyncHeaders;
import dev.klat.model.OtlpPaths;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * OTLP/HTTP on {@code /v1/traces} and {@code /v1/metrics} (protobuf and JSON) and {@code /v1/logs}
 * (the broker probe's, protobuf), optionally gzipped, answering as the OTLP specification says: 400
 * for a body that does not decode (not retryable), 413 for a body over the limit, measured after
 * decompression and without inflating more than the limit, 415 for an unknown content type or
 * encoding, 503 with {@code Retry-After} when all request slots are busy, 429 with {@code
 * Retry-After} when the sink is busy (a full join table, a full producer buffer), and 200 with a
 * partial success when some spans or points were rejected.
 *
 * <p>Every response to {@code /v1/traces} and {@code /v1/metrics}, error or not, carries the
 * collector's wall clock at the request's receipt and at the response ({@link ClockSyncHeaders}),
 * so that an agent measures its clock against the collector's on exports it makes anyway.
 *
 * <p>Memory: a body is read into a buffer that grows as its bytes arrive, each growth taken from
 * the receiver's budget of bytes ({@code maxReceivingBytes}; 503 with {@code Retry-After} when it
 * is spent) and given back when the request ends, so the bodies held never pass that budget; a
 * decode slot ({@code maxConcurrentRequests}) is taken only once the body is whole, so a slow
 * sender holds a thread and the bytes it sent, never a slot. A request that has not arrived whole
 * within the read timeout is cut off by the JDK's server (the process sets {@code
 * sun.net.httpserver.maxReqTime}, see {@code collector/DESIGN.md}) and counted as {@code
 * read-timeout}.
 */
public final class OtlpHttpReceiver implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(OtlpHttpReceiver.class.getName());
  private static final String PROTOBUF = "application/x-protobuf";
  private static final String JSON = "application/json";
  private static final String RETRY_AFTER_SECONDS = "1";
  static final long DISCARD_LIMIT_BYTES = 256L * 1024 * 1024;
  // Threads for bodies still arriving, beside those of the decode slots: each slow sender holds one
  // until the read timeout; more slow senders than this make requests queue, never refused.
  static final int RECEIVING_THREADS = 32;
  // A body's buffer starts at its announced length, at most this large, and doubles as its bytes
  // arrive past it: an agent's batch (a few hundred KiB) is read into one array, while senders that
  // announce a large body and send nothing hold at most this each, and, one per request thread, at
  // most (32 + slots) MiB in all, less than the default budget.
  static final int FIRST_BUFFER_BYTES = 1024 * 1024;
  // A body that has arrived whole waits this long for a decode slot before 503.
  static final long SLOT_WAIT_MILLIS = 1_000;
  private static final BusyException RECEIVING_FULL =
      new BusyException(
          "receiving-full", "too many request bytes arriving at once (otlp.max-receiving-bytes)");

  private final HttpServer server;
  private final RequestSlots slots;
  private final ByteBudget receiving;
  private final long readTimeoutNanos;
  private final int maxBodyBytes;
  private final OtlpSink ingest;
  private final LongSupplier epochNanos;

  /**
   * Binds and starts the receiver (port 0 picks a free port), stamping responses with the system's
   * wall clock; request bodies go to {@code ingest}.
   *
   * @throws IOException if the address cannot be bound
   */
  public OtlpHttpReceiver(InetSocketAddress address, ReceiverLimits limits, OtlpSink ingest)
      throws IOException {
    this(address, limits, ingest, ListenerSecurity.PLAIN, SyncStamps.SYSTEM_EPOCH_NANOS);
  }

  /** As above, with TLS and tokens as {@code security} says. */
  public OtlpHttpReceiver(
      InetSocketAddress address, ReceiverLimits limits, OtlpSink ingest, ListenerSecurity security)
      throws IOException {
    this(address, limits, ingest, security, SyncStamps.SYSTEM_EPOCH_NANOS);
  }

  /** Plain, on the given wall clock (nanoseconds since the epoch), for the tests. */
  OtlpHttpReceiver(
      InetSocketAddress address, ReceiverLimits limits, OtlpSink ingest, LongSupplier epochNanos)
      throws IOException {
    this(address, limits, ingest, ListenerSecurity.PLAIN, epochNanos);
  }

  private OtlpHttpReceiver(
      InetSocketAddress address,
      ReceiverLimits limits,
      OtlpSink ingest,
      ListenerSecurity security,
      LongSupplier epochNanos)
      throws IOException {
    this.epochNanos = epochNanos;
    this.maxBodyBytes = limits.maxBodyBytes();
    this.ingest = ingest;
    this.receiving = new ByteBudget(limits.maxReceivingBytes());
    this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.readTimeoutMillis());
    this.slots =
        new RequestSlots(
            limits.maxConcurrentRequests(),
            RECEIVING_THREADS,
            "klat-otlp-http",
            () -> ingest.stats().rejected("threads-full"));
    // HTTPS when TLS is on; with tokens, every context checks one before its handler runs.
    this.server = security.httpServer(address, 256);
    server.setExecutor(slots.executor());
    server.createContext(OtlpPaths.TRACES, exchange -> handle(exchange, Signal.TRACES));
    server.createContext(OtlpPaths.METRICS, exchange -> handle(exchange, Signal.METRICS));
    server.createContext(OtlpPaths.LOGS, exchange -> handle(exchange, Signal.LOGS));
    server.createContext(
        "/",
        exchange -> {
          respond(exchange, 404, "text/plain", "not found\n".getBytes(StandardCharsets.UTF_8));
        });
    server.start();
  }

  /** The bound address, with the actual port. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** The OTLP signals served: traces and metrics from the agents, logs from the broker probes. */
  private enum Signal {
    TRACES(OtlpPaths.TRACES),
    METRICS(OtlpPaths.METRICS),
    LOGS(OtlpPaths.LOGS);

    final String path;

    Signal(String path) {
      this.path = path;
    }
  }

  private void handle(HttpExchange exchange, Signal signal) {
    long startNanos = System.nanoTime();
    boolean traces = signal == Signal.TRACES;
    // t1 first: the request's headers have just arrived; the body may still be on the wire.
    exchange
        .getResponseHeaders()
        .set(ClockSyncHeaders.RECEIVE_TIME_MICROS, SyncStamps.micros(epochNanos.getAsLong()));
    try {
      String path = exchange.getRequestURI().getPath();
      if (!path.equals(signal.path)) {
        respond(exchange, 404, "text/plain", "not found\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "POST");
        respond(exchange, 405, "text/plain", "use POST\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      boolean json = isJson(exchange.getRequestHeaders().getFirst("Content-Type"));
      if (json && !ingest.acceptsJson()) {
        refuse(
            exchange,
            415,
            true,
            "unsupported-media-type",
            "this collector forwards OTLP protobuf only: use " + PROTOBUF);
        return;
      }
      if (json && signal == Signal.LOGS) {
        refuse(
            exchange, 415, true, "unsupported-media-type", "the broker probe's logs are protobuf");
        return;
      }
      if (!json && !isProtobuf(exchange.getRequestHeaders().getFirst("Content-Type"))) {
        refuse(exchange, 415, false, "unsupported-media-type", "use " + PROTOBUF + " or " + JSON);
        return;
      }
      String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
      boolean gzip = encoding != null && encoding.trim().equalsIgnoreCase("gzip");
      if (encoding != null && !gzip && !encoding.trim().equalsIgnoreCase("identity")) {
        refuse(exchange, 415, json, "unsupported-encoding", "unsupported encoding " + encoding);
        return;
      }
      if (traces) {
        try {
          // Before the body is read: a refused body is discarded, never held.
          ingest.admitTraces();
        } catch (BusyException e) {
          refuseBusy(exchange, json, e);
          return;
        }
      }
      Taken taken = new Taken();
      try {
        Body body;
        try {
          body = readBody(exchange, gzip, taken);
        } catch (TooLargeException e) {
          refuse(exchange, 413, json, "too-large", "body over " + maxBodyBytes + " bytes");
          return;
        } catch (ZipException | java.io.EOFException e) {
          refuse(exchange, 400, json, "malformed", "bad gzip body: " + e.getMessage());
          return;
        } catch (BusyException e) {
          refuseBusy(exchange, 503, json, e);
          return;
        } catch (IOException e) {
          // Closed under the read: by the JDK's server when the read timeout passed (its clock
          // started before this handler, at the connection's first byte), else by the client.
          ingest
              .stats()
              .rejected(
                  System.nanoTime() - startNanos >= readTimeoutNanos
                      ? "read-timeout"
                      : "connection-lost");
          exchange.close();
          return;
        }
        // Only now, with the whole body here, a decode slot.
        if (!slots.tryAcquire(SLOT_WAIT_MILLIS)) {
          exchange.getResponseHeaders().set("Retry-After", RETRY_AFTER_SECONDS);
          refuse(exchange, 503, json, "busy", "too many concurrent requests");
          return;
        }
        try {
          decode(exchange, signal, json, body);
        } finally {
          slots.release();
        }
      } finally {
        taken.giveBack(receiving);
      }
    } catch (IOException e) {
      // The client went away; nothing to answer.
      exchange.close();
    } catch (RuntimeException | Error e) {
      LOG.log(Level.WARNING, "OTLP request failed", e);
      try {
        refuse(exchange, 500, false, "internal", "internal error");
      } catch (IOException | RuntimeException ignored) {
        exchange.close();
      }
    }
  }

  private void decode(HttpExchange exchange, Signal signal, boolean json, Body body)
      throws IOException {
    byte[] response;
    try {
      response =
          switch (signal) {
            case TRACES -> ingest.traces(body.bytes, body.length, json);
            case METRICS -> ingest.metrics(body.bytes, body.length, json);
            case LOGS -> ingest.logs(body.bytes, body.length);
          };
    } catch (MalformedException e) {
      refuse(exchange, 400, json, "malformed", e.getMessage());
      return;
    } catch (BusyException e) {
      refuseBusy(exchange, json, e);
      return;
    }
    respond(exchange, 200, json ? JSON : PROTOBUF, response);
  }

  private record Body(byte[] bytes, int length) {}

  /** The bytes a request took from the receiving budget, given back when it ends. */
  private static final class Taken {
    long bytes;

    void giveBack(ByteBudget budget) {
      budget.giveBack(bytes);
      bytes = 0;
    }
  }

  /** A buffer of {@code size} bytes, taken from the budget first. */
  private byte[] allocate(int size, Taken taken) throws BusyException {
    if (!receiving.tryTake(size)) {
      throw RECEIVING_FULL;
    }
    taken.bytes += size;
    return new byte[size];
  }

  // The largest array a JVM reliably allocates.
  private static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  private Body readBody(HttpExchange exchange, boolean gzip, Taken taken)
      throws IOException, BusyException {
    String lengthHeader = exchange.getRequestHeaders().getFirst("Content-Length");
    // In long: maxBodyBytes may be Integer.MAX_VALUE.
    long limit = Math.min((long) maxBodyBytes + 1, MAX_ARRAY_BYTES);
    if (lengthHeader != null) {
      try {
        long declared = Long.parseLong(lengthHeader.trim());
        if (declared > maxBodyBytes) {
          throw new TooLargeException();
        }
        if (!gzip && declared >= 0) {
          // One byte more than declared, so that the end of the stream is seen without growing
          // past it.
          limit = Math.min(declared + 1, MAX_ARRAY_BYTES);
        }
      } catch (NumberFormatException e) {
        // The server rejects a bad Content-Length itself; read and limit.
      }
    }
    InputStream raw = exchange.getRequestBody();
    InputStream in =
        gzip
            ? new GZIPInputStream(new LimitedInputStream(raw, maxBodyBytes), 8192)
            : new LimitedInputStream(raw, maxBodyBytes);
    // Grown as the bytes arrive (each size taken from the budget before it is allocated), so that
    // what a request holds is what it sent, not what it announced.
    byte[] buf = allocate((int) Math.min(limit, FIRST_BUFFER_BYTES), taken);
    int size = 0;
    try (in) {
      while (true) {
        if (size == buf.length) {
          if (size > maxBodyBytes || size >= MAX_ARRAY_BYTES) {
            throw new TooLargeException();
          }
          int grown = (int) Math.min(limit, (long) size * 2);
          byte[] bigger = allocate(grown, taken);
          System.arraycopy(buf, 0, bigger, 0, size);
          receiving.giveBack(buf.length);
          taken.bytes -= buf.length;
          buf = bigger;
        }
        int n = in.read(buf, size, buf.length - size);
        if (n < 0) {
          break;
        }
        size += n;
        if (size > maxBodyBytes) {
          // Inflated past the limit: stop here, whatever remains.
          throw new TooLargeException();
        }
      }
    } catch (IOException | BusyException | RuntimeException e) {
      // The buffer is dropped: its bytes go back before the refusal discards the rest of the body.
      taken.giveBack(receiving);
      throw e;
    }
    return new Body(buf, size);
  }

  // A client still sending when the answer comes and the connection closes gets a reset instead
  // of the answer. Discarding wire bytes costs no memory and no inflation; beyond the cap the
  // connection is closed anyway.
  private static void discardRest(HttpExchange exchange) {
    byte[] sink = new byte[64 * 1024];
    long discarded = 0;
    try {
      InputStream in = exchange.getRequestBody();
      int n;
      while (discarded < DISCARD_LIMIT_BYTES && (n = in.read(sink)) >= 0) {
        discarded += n;
      }
    } catch (IOException ignored) {
      // the client went away
    }
  }

  private void refuseBusy(HttpExchange exchange, boolean json, BusyException e) throws IOException {
    refuseBusy(exchange, 429, json, e);
  }

  private void refuseBusy(HttpExchange exchange, int status, boolean json, BusyException e)
      throws IOException {
    exchange.getResponseHeaders().set("Retry-After", RETRY_AFTER_SECONDS);
    refuse(exchange, status, json, e.reason(), e.getMessage());
  }

  private void refuse(
      HttpExchange exchange, int status, boolean json, String reason, String message)
      throws IOException {
    ingest.stats().rejected(reason);
    byte[] body;
    // google.rpc.Status: code = 1, message = 2.
    int code =
        switch (status) {
          case 400 -> 3; // INVALID_ARGUMENT
          case 413, 429 -> 8; // RESOURCE_EXHAUSTED
          case 503 -> 14; // UNAVAILABLE
          default -> 2; // UNKNOWN
        };
    if (json) {
      body =
          ("{\"code\":" + code + ",\"message\":\"" + OtlpIngest.jsonEscape(message) + "\"}")
              .getBytes(StandardCharsets.UTF_8);
    } else {
      body = new ProtoWriter().varintField(1, code).stringField(2, message).toByteArray();
    }
    discardRest(exchange);
    respond(exchange, status, json ? JSON : PROTOBUF, body);
  }

  private void respond(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    if (exchange.getResponseHeaders().containsKey(ClockSyncHeaders.RECEIVE_TIME_MICROS)) {
      // t2 last, just before the status line goes out.
      exchange
          .getResponseHeaders()
          .set(ClockSyncHeaders.SEND_TIME_MICROS, SyncStamps.micros(epochNanos.getAsLong()));
    }
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
    exchange.close();
  }

  private static boolean isProtobuf(String contentType) {
    return mediaType(contentType).equals(PROTOBUF);
  }

  private static boolean isJson(String contentType) {
    return mediaType(contentType).equals(JSON);
  }

  private static String mediaType(String contentType) {
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
        .trim()
        .toLowerCase(Locale.ROOT);
  }

  @Override
  public void close() {
    server.stop(0);
    slots.close();
  }

  private static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    TooLargeException() {
      super("body too large", null);
    }
  }

  // Caps what is read from the wire, so that a compressed body larger than the limit is refused
  // too (gzip never shrinks a body that large below the limit in practice).
  private static final class LimitedInputStream extends InputStream {
    private final InputStream in;
    private long remaining;

    LimitedInputStream(InputStream in, long limit) {
      this.in = in;
      this.remaining = limit + 1;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (remaining <= 0) {
        throw new TooLargeException();
      }
      int n = in.read(b, off, (int) Math.min(len, remaining));
      if (n > 0) {
        remaining -= n;
      }
      return n;
    }

    @Override
    public void close() {
      // The exchange's stream stays open: a refused body is discarded from it before answering.
    }
  }
}
