package dev.klat.collector.export;

import dev.klat.collector.correlate.ClockOffset;
import dev.klat.collector.correlate.JoinedBreakdown;
import dev.klat.model.Breakdown;
import dev.klat.model.Instants;
import dev.klat.model.Segment;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TimePoint;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends each breakdown as a small trace to an OTLP/HTTP endpoint (Tempo in the demo): a root span
 * from {@code S} to {@code P} for the record and consumer group, and one child per segment with its
 * true start and end on the producer's timeline, so that a trace view draws the waterfall. The
 * spans join the record's own trace (same trace id), which is also the trace id of the exemplars.
 *
 * <p>Breakdowns wait in a bounded queue; when it is full, or the endpoint fails, they are dropped
 * and counted, never retried without bound. One daemon thread sends.
 */
public final class TraceExporter implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(TraceExporter.class.getName());
  private static final int MAX_BATCH = 256;
  private static final int KIND_INTERNAL = 1;

  private final URI endpoint;
  private final BlockingQueue<JoinedBreakdown> queue;
  private final HttpClient client;
  private final Thread thread;
  private final AtomicLong exported = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private volatile boolean running = true;

  /**
   * @param endpoint the OTLP/HTTP base URL, for example {@code http://127.0.0.1:4318}; {@code
   *     /v1/traces} is appended unless the URL already ends with it
   * @param queueCapacity how many breakdowns may wait to be sent
   */
  public TraceExporter(String endpoint, int queueCapacity) {
    String url = endpoint.endsWith("/v1/traces") ? endpoint : stripSlash(endpoint) + "/v1/traces";
    this.endpoint = URI.create(url);
    this.queue = new ArrayBlockingQueue<>(queueCapacity);
    this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    this.thread = new Thread(this::run, "klat-trace-exporter");
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues one breakdown; drops and counts it when the queue is full. */
  public void offer(JoinedBreakdown breakdown) {
    if (!breakdown.hasTraceId() || !queue.offer(breakdown)) {
      dropped.incrementAndGet();
    }
  }

  /** Breakdowns whose spans the endpoint accepted. */
  public long exported() {
    return exported.get();
  }

  /** Breakdowns dropped: queue full, no trace id, or the endpoint refused them. */
  public long dropped() {
    return dropped.get();
  }

  private void run() {
    List<JoinedBreakdown> batch = new ArrayList<>(MAX_BATCH);
    while (running || !queue.isEmpty()) {
      try {
        JoinedBreakdown first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, MAX_BATCH - 1);
        send(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "trace export failed", e);
        dropped.addAndGet(batch.size());
      } finally {
        batch.clear();
      }
    }
  }

  private void send(List<JoinedBreakdown> batch) throws InterruptedException {
    byte[] body = encode(batch);
    HttpRequest request =
        HttpRequest.newBuilder(endpoint)
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/x-protobuf")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    try {
      HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() / 100 == 2) {
        exported.addAndGet(batch.size());
      } else {
        dropped.addAndGet(batch.size());
        LOG.fine(() -> "trace export got HTTP " + response.statusCode());
      }
    } catch (java.io.IOException e) {
      dropped.addAndGet(batch.size());
      LOG.fine(() -> "trace export failed: " + e);
    }
  }

  /** Encodes breakdowns as an {@code ExportTraceServiceRequest}. */
  static byte[] encode(List<JoinedBreakdown> batch) {
    ProtoWriter scopeSpans = new ProtoWriter();
    scopeSpans.messageField(1, new ProtoWriter().stringField(1, "dev.klat.collector"));
    for (JoinedBreakdown b : batch) {
      for (ProtoWriter span : spans(b)) {
        scopeSpans.messageField(2, span);
      }
    }
    ProtoWriter resource = new ProtoWriter();
    resource.messageField(1, stringAttribute("service.name", "klat-collector"));
    ProtoWriter resourceSpans = new ProtoWriter();
    resourceSpans.messageField(1, resource);
    resourceSpans.messageField(2, scopeSpans);
    return new ProtoWriter().messageField(1, resourceSpans).toByteArray();
  }

  static List<ProtoWriter> spans(JoinedBreakdown jb) {
    Breakdown b = jb.breakdown();
    Instants t = b.instants();
    long s = t.nanos(TimePoint.SEND);
    long d = t.nanos(TimePoint.DRAIN);
    long h = t.nanos(TimePoint.COMMIT);
    long f = t.nanos(TimePoint.FETCH_REQUEST);
    long r = t.nanos(TimePoint.FETCH_RESPONSE);
    long p = t.nanos(TimePoint.POLL);
    long rootId = mix(jb.consumerSpanId() ^ jb.group().hashCode() ^ 0x6b6c6174L);
    List<ProtoWriter> out = new ArrayList<>();
    ProtoWriter root =
        span(jb, rootId, 0, "klat " + jb.key().topic() + " " + jb.group(), s, p, null);
    root.messageField(9, stringAttribute(SpanAttributes.QUALITY.name(), b.quality().id()));
    out.add(root);
    int child = 0;
    out.add(segmentSpan(jb, rootId, ++child, Segment.PRODUCE, "produce", s, d));
    if (b.isKnown(Segment.PUBLISH)) {
      long l = t.nanos(TimePoint.APPEND);
      out.add(segmentSpan(jb, rootId, ++child, Segment.PUBLISH, "publish", d, l));
      out.add(segmentSpan(jb, rootId, ++child, Segment.COMMIT, "commit", l, h));
    } else {
      out.add(segmentSpan(jb, rootId, ++child, null, "publish+commit", d, h));
    }
    if (f > h) {
      out.add(segmentSpan(jb, rootId, ++child, Segment.CATCH_UP, "catch-up (lag)", h, f));
    }
    out.add(segmentSpan(jb, rootId, ++child, Segment.FETCH, "fetch", Math.max(f, h), r));
    out.add(segmentSpan(jb, rootId, ++child, Segment.CATCH_UP, "catch-up (buffer)", r, p));
    return out;
  }

  private static ProtoWriter segmentSpan(
      JoinedBreakdown jb,
      long rootId,
      int child,
      Segment segment,
      String name,
      long start,
      long end) {
    ProtoWriter span = span(jb, mix(rootId + child), rootId, name, start, end, segment);
    Breakdown b = jb.breakdown();
    if (segment != null) {
      span.messageField(9, stringAttribute(SpanAttributes.SEGMENT.name(), segment.id()));
      span.messageField(9, stringAttribute(SpanAttributes.QUALITY.name(), b.quality(segment).id()));
      span.messageField(9, stringAttribute(SpanAttributes.METHOD.name(), b.method(segment).id()));
    } else {
      span.messageField(9, stringAttribute(SpanAttributes.QUALITY.name(), "none"));
    }
    return span;
  }

  private static ProtoWriter span(
      JoinedBreakdown jb,
      long spanId,
      long parentId,
      String name,
      long start,
      long end,
      Segment segment) {
    ProtoWriter span = new ProtoWriter();
    span.idField(1, jb.traceIdHigh(), jb.traceIdLow());
    span.idField(2, spanId);
    if (parentId != 0) {
      span.idField(4, parentId);
    }
    span.stringField(5, name);
    span.varintField(6, KIND_INTERNAL);
    span.fixed64Field(7, start);
    span.fixed64Field(8, Math.max(start, end));
    span.messageField(
        9, stringAttribute(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), jb.key().topic()));
    span.messageField(
        9,
        stringAttribute(
            SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(),
            Integer.toString(jb.key().partition())));
    span.messageField(
        9, longAttribute(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), jb.key().offset()));
    span.messageField(
        9, stringAttribute(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), jb.group()));
    ClockOffset offset =
        (segment == Segment.PUBLISH) && jb.brokerOffset() != null
            ? jb.brokerOffset()
            : jb.consumerOffset();
    span.messageField(
        9, longAttribute(SpanAttributes.CLOCK_OFFSET_NANOS.name(), offset.offsetNanos()));
    span.messageField(
        9, longAttribute(SpanAttributes.CLOCK_UNCERTAINTY_NANOS.name(), offset.uncertaintyNanos()));
    return span;
  }

  private static ProtoWriter stringAttribute(String key, String value) {
    return new ProtoWriter()
        .stringField(1, key)
        .messageField(2, new ProtoWriter().stringField(1, value));
  }

  private static ProtoWriter longAttribute(String key, long value) {
    return new ProtoWriter()
        .stringField(1, key)
        .messageField(2, new ProtoWriter().varintField(3, value));
  }

  // splitmix64: spreads related inputs over the id space; the result is never 0 in practice, and
  // an id of 0 would be invalid, so 0 maps to 1.
  static long mix(long z) {
    z += 0x9e3779b97f4a7c15L;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    z = z ^ (z >>> 31);
    return z == 0 ? 1 : z;
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
