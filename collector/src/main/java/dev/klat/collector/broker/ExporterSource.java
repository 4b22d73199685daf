package dev.klat.collector.broker;

import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.LongSupplier;

/** A broker's Prometheus JMX exporter endpoint, read as text format 0.0.4. */
final class ExporterSource implements Source {
  /** A broker's exporter with our rules answers about 40 KB; anything near this is not one. */
  static final long MAX_BODY_BYTES = 32L * 1024 * 1024;

  private final HttpClient http;
  private final URI endpoint;
  private final Duration readTimeout;

  ExporterSource(HttpClient http, URI endpoint, Duration readTimeout) {
    this.http = http;
    this.endpoint = endpoint;
    this.readTimeout = readTimeout;
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
    HttpRequest request =
        HttpRequest.newBuilder(endpoint)
            .timeout(readTimeout)
            // Not OpenMetrics: the exporter would then name the counts differently.
            .header("Accept", "text/plain;version=0.0.4")
            .GET()
            .build();
    long beforeNanos = epochNanos.getAsLong();
    HttpResponse<InputStream> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    // The exporter reads JMX while it answers, so the values are of about the time it answered.
    Reading reading = new Reading(beforeNanos + (epochNanos.getAsLong() - beforeNanos) / 2);
    try (InputStream body = new Capped(response.body(), MAX_BODY_BYTES)) {
      if (response.statusCode() != 200) {
        throw new IOException("HTTP " + response.statusCode() + " from " + endpoint);
      }
      ExporterText.parse(
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8)), reading);
    }
    return reading;
  }

  @Override
  public void close() {
    // HttpClient connections are pooled by the shared client.
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
