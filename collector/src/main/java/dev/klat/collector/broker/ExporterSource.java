package dev.klat.collector.broker;

import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;

/**
 * A broker's Prometheus JMX exporter endpoint, read as text format 0.0.4. {@link HttpURLConnection}
 * rather than {@code java.net.http}: its read timeout bounds every read of the body, not only the
 * wait for the headers, so an exporter that stalls halfway cannot hold a scraping thread; and it
 * needs no selector thread of its own.
 */
final class ExporterSource implements Source {
  /** A broker's exporter with our rules answers about 40 KB; anything near this is not one. */
  static final long MAX_BODY_BYTES = 32L * 1024 * 1024;

  private final URI endpoint;
  private final int connectTimeoutMs;
  private final int readTimeoutMs;
  private final ExporterAuth auth;

  ExporterSource(URI endpoint, int connectTimeoutMs, int readTimeoutMs) {
    this(endpoint, connectTimeoutMs, readTimeoutMs, ExporterAuth.NONE);
  }

  ExporterSource(URI endpoint, int connectTimeoutMs, int readTimeoutMs, ExporterAuth auth) {
    this.endpoint = endpoint;
    this.connectTimeoutMs = connectTimeoutMs;
    this.readTimeoutMs = readTimeoutMs;
    this.auth = auth;
  }

  @Override
  public String kind() {
    return "exporter";
  }

  @Override
  public String endpoint() {
    return endpoint.toString();
  }

  @Override
  public Reading read(LongSupplier epochNanos) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) endpoint.toURL().openConnection();
    connection.setConnectTimeout(connectTimeoutMs);
    connection.setReadTimeout(readTimeoutMs);
    connection.setUseCaches(false);
    // Not OpenMetrics: the exporter would then name the counts differently.
    connection.setRequestProperty("Accept", "text/plain;version=0.0.4");
    // Never followed: a redirect would carry the credentials elsewhere.
    connection.setInstanceFollowRedirects(false);
    auth.apply(connection);
    long beforeNanos = epochNanos.getAsLong();
    int status = connection.getResponseCode();
    // The exporter reads JMX while it answers, so the values are of about the time it answered.
    Reading reading = new Reading(beforeNanos + (epochNanos.getAsLong() - beforeNanos) / 2);
    if (status != 200) {
      InputStream error = connection.getErrorStream();
      if (error != null) {
        error.close();
      }
      throw new IOException("HTTP " + status + " from " + endpoint);
    }
    try (InputStream body = new Capped(connection.getInputStream(), MAX_BODY_BYTES)) {
      ExporterText.parse(
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8)), reading);
    }
    return reading;
  }

  @Override
  public void close() {
    // Keep-alive connections belong to the JDK's pool, which closes idle ones itself.
  }

  /** Fails a body longer than the limit instead of buffering it. */
  private static final class Capped extends FilterInputStream {
    private final long limit;
    private long read;

    Capped(InputStream in, long limit) {
      super(in);
      this.limit = limit;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(long n) throws IOException {
      read += n;
      if (read > limit) {
        throw new IOException("metrics body larger than " + limit + " bytes");
      }
    }
  }
}
