package dev.klat.collector.receive;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** What the OTLP receiver counted since start. Thread-safe. */
public final class ReceiverStats {
  final AtomicLong spansReceived = new AtomicLong();
  final AtomicLong spansNotKlat = new AtomicLong();
  final AtomicLong spansRejected = new AtomicLong();
  final AtomicLong spansForwarded = new AtomicLong();
  final AtomicLong spansRefused = new AtomicLong();
  final AtomicLong recordsLost = new AtomicLong();
  final AtomicLong pointsReceived = new AtomicLong();
  final AtomicLong pointsRejected = new AtomicLong();
  final AtomicLong probeRecordsReceived = new AtomicLong();
  final AtomicLong probeRecordsRejected = new AtomicLong();
  final AtomicLong probeRecordsNotKlat = new AtomicLong();
  private final Map<String, AtomicLong> requestsRejected = new ConcurrentHashMap<>();
  // By reason: a fixed set of short words (SpanMapper, WireNames, OtlpIngest), never wire text.
  private final Map<String, AtomicLong> spansRejectedByReason = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> pointsRejectedByReason = new ConcurrentHashMap<>();
  // By OtelSpanReader.Outcome ordinal: a fixed set of labels.
  private final AtomicLongArray otelSpans =
      new AtomicLongArray(OtelSpanReader.Outcome.values().length);

  void otelSpans(long[] byOutcome) {
    for (int i = 0; i < byOutcome.length; i++) {
      if (byOutcome[i] != 0) {
        otelSpans.addAndGet(i, byOutcome[i]);
      }
    }
  }

  /**
   * Spans that are not klat's, by what the collector made of them as an OpenTelemetry Kafka
   * instrumentation's (section 10 of the latency model): {@code producer}, {@code consumer}, {@code
   * batch}, {@code unplaceable}, {@code failed}, {@code other}, {@code refused}, {@code not-kafka};
   * every outcome, in that order, zero or not.
   */
  public Map<String, Long> otelSpans() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (OtelSpanReader.Outcome outcome : OtelSpanReader.Outcome.values()) {
      out.put(outcome.label, otelSpans.get(outcome.ordinal()));
    }
    return out;
  }

  void spansRejected(String reason, long count) {
    spansRejected.addAndGet(count);
    spansRejectedByReason.computeIfAbsent(reason, k -> new AtomicLong()).addAndGet(count);
  }

  void pointsRejected(String reason, long count) {
    pointsRejected.addAndGet(count);
    pointsRejectedByReason.computeIfAbsent(reason, k -> new AtomicLong()).addAndGet(count);
  }

  /** Spans rejected (partial success), by reason. */
  public Map<String, Long> spansRejectedByReason() {
    return snapshot(spansRejectedByReason);
  }

  /** Metric data points rejected (partial success), by reason. */
  public Map<String, Long> pointsRejectedByReason() {
    return snapshot(pointsRejectedByReason);
  }

  private static Map<String, Long> snapshot(Map<String, AtomicLong> counts) {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  void rejected(String reason) {
    requestsRejected.computeIfAbsent(reason, k -> new AtomicLong()).incrementAndGet();
  }

  /** Spans received in accepted requests, klat's or not. */
  public long spansReceived() {
    return spansReceived.get();
  }

  /**
   * Spans that were neither klat's producer or consumer spans nor Kafka spans of an OpenTelemetry
   * instrumentation, and were ignored.
   */
  public long spansNotKlat() {
    return spansNotKlat.get();
  }

  /** klat spans rejected because they lacked what the join needs (partial success). */
  public long spansRejected() {
    return spansRejected.get();
  }

  /**
   * Counts a trace request the ingest role read: its spans, those handed to the producer of the
   * span topic, and those of pieces refused as busy (the sender retries the request whole).
   */
  public void addSpansForwarded(long received, long forwarded, long refused) {
    spansReceived.addAndGet(received);
    spansForwarded.addAndGet(forwarded);
    spansRefused.addAndGet(refused);
  }

  /** Counts a record the producer failed to deliver after its request was answered. */
  public void addRecordLost() {
    recordsLost.incrementAndGet();
  }

  /** Ingest role: spans handed to the producer of the span topic. */
  public long spansForwarded() {
    return spansForwarded.get();
  }

  /**
   * Ingest role: spans of trace pieces the producer could not take at once (buffer full, topic
   * unknown); their requests were refused as busy and are retried by the sender.
   */
  public long spansRefused() {
    return spansRefused.get();
  }

  /**
   * Ingest role: records (trace pieces, metrics and probe requests) the producer failed to deliver
   * after their request was answered, which nobody retries.
   */
  public long recordsLost() {
    return recordsLost.get();
  }

  /** Broker probe log records received (one per partition and leader term per export). */
  public long probeRecordsReceived() {
    return probeRecordsReceived.get();
  }

  /** Broker probe log records rejected: ranges that did not decode, or no broker id. */
  public long probeRecordsRejected() {
    return probeRecordsRejected.get();
  }

  /** Log records on {@code /v1/logs} that were not the broker probe's, and were ignored. */
  public long probeRecordsNotKlat() {
    return probeRecordsNotKlat.get();
  }

  /** Metric data points received. */
  public long pointsReceived() {
    return pointsReceived.get();
  }

  /** Metric data points rejected (partial success). */
  public long pointsRejected() {
    return pointsRejected.get();
  }

  /** Requests refused as a whole, by reason. */
  public Map<String, Long> requestsRejected() {
    return snapshot(requestsRejected);
  }
}
