package dev.klat.agentcore.otlp;

import dev.klat.agentcore.auth.ExportHeaders;
import dev.klat.agentcore.auth.ExportTls;
import dev.klat.agentcore.auth.HostnameCheckingSocketFactory;
import dev.klat.agentcore.auth.Secrets;
import dev.klat.agentcore.auth.UserInfo;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.ClockSyncHeaders;
import dev.klat.model.OtlpPaths;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.security.GeneralSecurityException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

/**
 * Sends OTLP/HTTP protobuf requests with {@link HttpURLConnection} (Java 8, nothing to ship) and
 * classifies the outcome per the OTLP/HTTP specification. Every answer that carries the klat
 * collector's clock headers also feeds {@link #clockSync()}. Never throws; used by the exporter
 * thread only, except {@link #abort()}.
 *
 * <p><b>Credentials.</b> The configured headers go with every request. User info in the endpoint
 * ({@code https://user:password@host}) is sent as {@code Authorization: Basic}, unless the headers
 * set {@code Authorization}; the URL connected to, {@link #endpoint()} and every message go without
 * it, and a header value never appears in a {@link Result#detail}. With an {@link ExportTls}, an
 * {@code https} connection uses its socket factory, set on that connection only; without one, the
 * JDK's default trust. Either way the handshake checks the host name, whatever host name verifier
 * the application set JVM-wide. Each failure is counted by {@link FailureReason} in {@link
 * #failures()}.
 */
public final class OtlpHttpSender {

  /** What the caller should do with the data it sent. */
  public enum Outcome {
    /** 2xx: the data was accepted (a partial success is still a success here). */
    SUCCESS,
    /** 429, 502, 503, 504, or an I/O error (refused, reset, timeout): try again later. */
    RETRYABLE,
    /** Any other status: sending the same data again would fail again; drop it. */
    REJECTED
  }

  /** The outcome of one request. Immutable. */
  public static final class Result {
    public final Outcome outcome;

    /** The HTTP status, or -1 if no response was received. */
    public final int httpStatus;

    /** The delay the server asked for with {@code Retry-After}, capped; -1 if it did not. */
    public final long retryAfterMillis;

    /** A short description for the log, without credentials. */
    public final String detail;

    /** Why it failed; null for a success. */
    public final FailureReason reason;

    /**
     * The one line that explains a configuration problem ({@link FailureReason#explained()}), on
     * the first failure of its reason in this sender; else null. Log it once, as it is.
     */
    public final String advice;

    Result(Outcome outcome, int httpStatus, long retryAfterMillis, String detail) {
      this(outcome, httpStatus, retryAfterMillis, detail, null, null);
    }

    Result(
        Outcome outcome,
        int httpStatus,
        long retryAfterMillis,
        String detail,
        FailureReason reason,
        String advice) {
      this.outcome = outcome;
      this.httpStatus = httpStatus;
      this.retryAfterMillis = retryAfterMillis;
      this.detail = detail;
      this.reason = reason;
      this.advice = advice;
    }

    @Override
    public String toString() {
      return outcome + " (" + detail + ")";
    }
  }

  /** A collector's response body is read up to this many bytes, {@value}, then abandoned. */
  static final int MAX_RESPONSE_BYTES = 64 * 1024;

  /** The longest {@code Retry-After} honoured, {@value} ms; a longer one is cut to it. */
  static final long MAX_RETRY_AFTER_MILLIS = 60_000;

  private final String endpointBase;
  private final URL tracesUrl;
  private final URL metricsUrl;
  private final URL logsUrl;
  private final String hostPort;
  private final Map<String, String> headers;
  private final ExportTls tls;
  // The JDK's default TLS with host names checked, when no ExportTls is given; exporter thread.
  private SSLSocketFactory defaultTls;
  private final ExportFailures failures = new ExportFailures();
  private final boolean gzip;
  private final TimeSource time;
  private final String userAgent;
  private final ClockSync clockSync = new ClockSync();

  // The connection in flight, so that shutdown can close it from another thread.
  private volatile HttpURLConnection inFlight;
  private volatile boolean aborted;

  /** A sender with the JDK's default TLS, for tests and benchmarks; see the full constructor. */
  public OtlpHttpSender(
      String endpointBase,
      Map<String, String> headers,
      boolean gzip,
      String agentVersion,
      TimeSource time)
      throws IOException {
    this(endpointBase, headers, null, gzip, agentVersion, time);
  }

  /**
   * @param endpointBase the base URL; user info in it becomes basic authentication
   * @param headers sent with every request ({@code klat.export.headers}, checked)
   * @param tls the exporter's own TLS for an https endpoint; null for the JDK's default
   * @throws IOException if the URL does not parse
   */
  public OtlpHttpSender(
      String endpointBase,
      Map<String, String> headers,
      ExportTls tls,
      boolean gzip,
      String agentVersion,
      TimeSource time)
      throws IOException {
    String withoutUserInfo = UserInfo.strip(endpointBase);
    URL base = new URL(withoutUserInfo);
    Map<String, String> all = new LinkedHashMap<>(headers);
    String rawUserInfo = UserInfo.raw(endpointBase);
    if (rawUserInfo != null && !ExportHeaders.has(all, "Authorization")) {
      all.put("Authorization", UserInfo.basicAuthorization(rawUserInfo));
    }
    this.endpointBase = withoutUserInfo;
    this.hostPort =
        base.getHost() + ":" + (base.getPort() < 0 ? base.getDefaultPort() : base.getPort());
    this.tracesUrl = new URL(withoutUserInfo + OtlpPaths.TRACES);
    this.metricsUrl = new URL(withoutUserInfo + OtlpPaths.METRICS);
    this.logsUrl = new URL(withoutUserInfo + OtlpPaths.LOGS);
    this.headers = Collections.unmodifiableMap(all);
    this.tls = tls;
    this.gzip = gzip;
    this.userAgent = "klat-agent/" + agentVersion;
    this.time = time;
  }

  /** The endpoint's base URL, as configured but without user info, for messages. */
  public String endpoint() {
    return endpointBase;
  }

  /** This sender's failed requests by reason. */
  public ExportFailures failures() {
    return failures;
  }

  /** The clock samples of this sender's exchanges; exporter thread only. */
  public ClockSync clockSync() {
    return clockSync;
  }

  Result sendTraces(byte[] body, int connectTimeoutMillis, int readTimeoutMillis) {
    return sendTracesPayload(payload(body, body.length), connectTimeoutMillis, readTimeoutMillis);
  }

  Result sendMetrics(byte[] body, int connectTimeoutMillis, int readTimeoutMillis) {
    return sendMetricsPayload(payload(body, body.length), connectTimeoutMillis, readTimeoutMillis);
  }

  /** Posts an OTLP logs request to {@code <endpoint>/v1/logs} (the broker probe's events). */
  public Result sendLogs(byte[] body, int connectTimeoutMillis, int readTimeoutMillis) {
    byte[] payload = payload(body, body.length);
    return send(logsUrl, payload, payload.length, connectTimeoutMillis, readTimeoutMillis);
  }

  /**
   * The request body as it goes on the wire, from the first {@code length} bytes of {@code body}:
   * compressed when gzip is on, else copied. Made once per request and kept for its retries.
   */
  public byte[] payload(byte[] body, int length) {
    if (!gzip) {
      return Arrays.copyOf(body, length);
    }
    try {
      return gzip(body, length);
    } catch (IOException e) {
      // In memory only: nothing here does I/O.
      throw new IllegalStateException(e);
    }
  }

  /**
   * Makes the wire form of the first {@code length} bytes of {@code body}, as {@link #payload}
   * does, into {@code payload}, which is emptied first: the span exporter reuses one buffer for
   * every request rather than a new array (and its copy) per request.
   */
  public void fill(Payload payload, byte[] body, int length) {
    payload.reset();
    if (!gzip) {
      payload.write(body, 0, length);
      return;
    }
    try {
      gzipInto(payload, body, length);
    } catch (IOException e) {
      // In memory only: nothing here does I/O.
      throw new IllegalStateException(e);
    }
  }

  /** Posts a {@link #payload} of an OTLP traces request. */
  public Result sendTracesPayload(byte[] payload, int connectTimeoutMillis, int readTimeoutMillis) {
    return send(tracesUrl, payload, payload.length, connectTimeoutMillis, readTimeoutMillis);
  }

  /** Posts a filled {@link Payload} of an OTLP traces request. */
  public Result sendTracesPayload(
      Payload payload, int connectTimeoutMillis, int readTimeoutMillis) {
    return send(
        tracesUrl, payload.array(), payload.size(), connectTimeoutMillis, readTimeoutMillis);
  }

  /** Posts a {@link #payload} of an OTLP metrics request. */
  public Result sendMetricsPayload(
      byte[] payload, int connectTimeoutMillis, int readTimeoutMillis) {
    return send(metricsUrl, payload, payload.length, connectTimeoutMillis, readTimeoutMillis);
  }

  /**
   * Closes the connection in flight, if any, and makes every later request fail at once; called by
   * shutdown when the final flush runs out of time, since interrupting a thread does not unblock a
   * socket read.
   */
  public void abort() {
    aborted = true;
    HttpURLConnection connection = inFlight;
    if (connection != null) {
      connection.disconnect();
    }
  }

  private Result send(
      URL url, byte[] payload, int length, int connectTimeoutMillis, int readTimeoutMillis) {
    if (aborted) {
      return new Result(Outcome.RETRYABLE, -1, -1, "sender aborted");
    }
    HttpURLConnection connection = null;
    try {
      connection = (HttpURLConnection) url.openConnection();
      if (connection instanceof HttpsURLConnection) {
        SSLSocketFactory factory;
        try {
          factory = socketFactory();
        } catch (GeneralSecurityException | RuntimeException e) {
          return failed(
              Outcome.REJECTED, -1, -1, e.getClass().getSimpleName(), FailureReason.TLS_SETUP);
        }
        // This connection's only: the JVM's default factory, the application's, stays as it is.
        ((HttpsURLConnection) connection).setSSLSocketFactory(factory);
      }
      inFlight = connection;
      connection.setRequestMethod("POST");
      connection.setDoOutput(true);
      connection.setUseCaches(false);
      connection.setInstanceFollowRedirects(false);
      // 0 would mean "wait forever" to HttpURLConnection.
      connection.setConnectTimeout(Math.max(1, connectTimeoutMillis));
      connection.setReadTimeout(Math.max(1, readTimeoutMillis));
      connection.setRequestProperty("Content-Type", "application/x-protobuf");
      connection.setRequestProperty("User-Agent", userAgent);
      if (gzip) {
        connection.setRequestProperty("Content-Encoding", "gzip");
      }
      for (Map.Entry<String, String> header : headers.entrySet()) {
        connection.setRequestProperty(header.getKey(), header.getValue());
      }
      connection.setFixedLengthStreamingMode(length);
      // t0 before connecting: the collector cannot have read the request before it.
      long t0 = time.epochNanos();
      try (OutputStream out = connection.getOutputStream()) {
        out.write(payload, 0, length);
      }
      int status = connection.getResponseCode();
      long t3 = time.epochNanos();
      clockSync.record(
          t0,
          connection.getHeaderField(ClockSyncHeaders.RECEIVE_TIME_MICROS),
          connection.getHeaderField(ClockSyncHeaders.SEND_TIME_MICROS),
          t3);
      long retryAfterMillis = parseRetryAfterMillis(connection.getHeaderField("Retry-After"));
      boolean fullyRead;
      try {
        fullyRead = discardResponse(connection, status);
      } catch (IOException e) {
        // The status decides: a 200 whose body then stalls was still accepted, and resending it
        // would duplicate the spans.
        fullyRead = false;
      }
      if (!fullyRead) {
        // Closing the stream instead would let the JDK drain the rest (up to 512 KiB by default,
        // on its keep-alive cleaner thread); disconnect drops the socket.
        connection.disconnect();
      }
      Result result = classify(status, retryAfterMillis);
      return result.outcome == Outcome.SUCCESS
          ? result
          : failed(
              result.outcome,
              status,
              result.retryAfterMillis,
              result.detail,
              FailureReason.ofStatus(status));
    } catch (IOException | RuntimeException e) {
      // IOException: refused, reset, timed out, unknown host, a TLS handshake that failed: the
      // collector (or its certificate) may come back.
      // RuntimeException: HttpURLConnection rejected something locally, which will not change.
      if (connection != null) {
        connection.disconnect();
      }
      String detail = e.getClass().getSimpleName() + ": " + e.getMessage();
      if (e instanceof IOException) {
        return failed(
            Outcome.RETRYABLE, -1, -1, detail, FailureReason.ofException((IOException) e));
      }
      return failed(Outcome.REJECTED, -1, -1, detail, FailureReason.REJECTED);
    } finally {
      inFlight = null;
    }
  }

  /**
   * The exporter's own TLS, else the JDK's default, either checking host names in the handshake
   * ({@link HostnameCheckingSocketFactory}); made once, on the exporter thread.
   */
  private SSLSocketFactory socketFactory() throws GeneralSecurityException {
    if (tls != null) {
      return tls.socketFactory();
    }
    SSLSocketFactory factory = defaultTls;
    if (factory == null) {
      factory = new HostnameCheckingSocketFactory((SSLSocketFactory) SSLSocketFactory.getDefault());
      defaultTls = factory;
    }
    return factory;
  }

  /** Counts a failure, with its credentials-free detail and, the first time, its advice. */
  private Result failed(
      Outcome outcome, int status, long retryAfterMillis, String rawDetail, FailureReason reason) {
    String detail = withoutSecrets(rawDetail);
    String advice = failures.record(reason) ? reason.advice(endpointBase, hostPort, detail) : null;
    return new Result(outcome, status, retryAfterMillis, detail, reason, advice);
  }

  /**
   * {@code text} with every header value of four characters or more masked: a JDK message may quote
   * what it refused (an illegal character in a header value), and the headers carry tokens. Shorter
   * values are no secret worth mangling a message for.
   */
  String withoutSecrets(String text) {
    if (text == null) {
      return null;
    }
    String result = text;
    for (String value : headers.values()) {
      if (value.length() >= 4 && result.contains(value)) {
        result = result.replace(value, Secrets.MASK);
      }
    }
    return result;
  }

  /** Returns true if the body was read to its end, false if it was abandoned at the limit. */
  private static boolean discardResponse(HttpURLConnection connection, int status)
      throws IOException {
    if (connection.getContentLengthLong() > MAX_RESPONSE_BYTES) {
      return false;
    }
    InputStream in;
    try {
      in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
    } catch (IOException e) {
      return false;
    }
    if (in == null) {
      return true;
    }
    // Reading to the end lets HttpURLConnection reuse the connection for the next request.
    byte[] scratch = new byte[8192];
    int total = 0;
    while (total < MAX_RESPONSE_BYTES) {
      int n = in.read(scratch, 0, Math.min(scratch.length, MAX_RESPONSE_BYTES - total));
      if (n < 0) {
        in.close();
        return true;
      }
      total += n;
    }
    return false;
  }

  static Result classify(int status, long retryAfterMillis) {
    String detail = "HTTP " + status;
    if (status >= 200 && status < 300) {
      return new Result(Outcome.SUCCESS, status, -1, detail);
    }
    // The OTLP/HTTP specification names exactly these as retryable; every other status must not
    // be retried.
    if (status == 429 || status == 502 || status == 503 || status == 504) {
      return new Result(Outcome.RETRYABLE, status, retryAfterMillis, detail);
    }
    return new Result(Outcome.REJECTED, status, -1, detail);
  }

  /**
   * Reads a {@code Retry-After} value: delay seconds, or an HTTP date.
   *
   * @return the delay in milliseconds, at most {@link #MAX_RETRY_AFTER_MILLIS}; -1 if absent or
   *     unreadable
   */
  long parseRetryAfterMillis(String value) {
    if (value == null) {
      return -1;
    }
    String trimmed = value.trim();
    if (trimmed.isEmpty()) {
      return -1;
    }
    boolean digits = true;
    for (int i = 0; i < trimmed.length(); i++) {
      char c = trimmed.charAt(i);
      digits &= c >= '0' && c <= '9';
    }
    if (digits) {
      // More than 9 digits is more than 31 years: the cap applies, and parsing could overflow.
      if (trimmed.length() > 9) {
        return MAX_RETRY_AFTER_MILLIS;
      }
      return Math.min(Long.parseLong(trimmed) * 1000, MAX_RETRY_AFTER_MILLIS);
    }
    try {
      long atEpochMillis =
          ZonedDateTime.parse(trimmed, DateTimeFormatter.RFC_1123_DATE_TIME)
              .toInstant()
              .toEpochMilli();
      long delayMillis = atEpochMillis - time.epochNanos() / 1_000_000;
      return Math.max(0, Math.min(delayMillis, MAX_RETRY_AFTER_MILLIS));
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * Compressed at gzip's fastest level: the exporter runs inside the application, where CPU counts
   * more than bytes to a collector. Per producer span, level 1 took 1.2 us against 3.4 us at the
   * default level, for 2% more bytes on its 512 alike spans ({@code SpanExportBenchmark}).
   */
  private static byte[] gzip(byte[] body, int length) throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(Math.max(64, length / 4));
    gzipInto(buffer, body, length);
    return buffer.toByteArray();
  }

  private static void gzipInto(ByteArrayOutputStream buffer, byte[] body, int length)
      throws IOException {
    try (GZIPOutputStream out = new FastGzipOutputStream(buffer)) {
      out.write(body, 0, length);
    }
  }

  /**
   * A request body as it goes on the wire, in a buffer that the next request reuses. Exporter
   * thread only.
   */
  public static final class Payload extends ByteArrayOutputStream {
    public Payload(int initialBytes) {
      super(initialBytes);
    }

    /** The buffer itself, valid up to {@link #size()}. */
    public byte[] array() {
      return buf;
    }
  }

  private static final class FastGzipOutputStream extends GZIPOutputStream {
    FastGzipOutputStream(ByteArrayOutputStream out) throws IOException {
      super(out, 8192);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }
}
