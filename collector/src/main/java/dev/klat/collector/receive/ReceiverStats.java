package dev.klat.collector.receive;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** What the OTLP receiver counted since start. Thread-safe. */
public final class ReceiverStats {
  final AtomicLong spansReceived = new AtomicLong();
  final AtomicLong spansNotKlat = new AtomicLong();
  final AtomicLong spansRejected = new AtomicLong();
  final AtomicLong pointsReceived = new AtomicLong();
  final AtomicLong pointsRejected = new AtomicLong();
  final AtomicLong probeRecordsReceived = new AtomicLong();
  final AtomicLong probeRecordsRejected = new AtomicLong();
  final AtomicLong probeRecordsNotKlat = new AtomicLong();
  private final Map<String, AtomicLong> requestsRejected = new ConcurrentHashMap<>();

  void rejected(String reason) {
    requestsRejected.computeIfAbsent(reason, k -> new AtomicLong()).incrementAndGet();
  }

  /** Spans received in accepted requests, klat's or not. */
  public long spansReceived() {
    return spansReceived.get();
  }

  /** Spans that were not klat producer or consumer spans, and were ignored. */
  public long spansNotKlat() {
    return spansNotKlat.get();
  }

  /** klat spans rejected because they lacked what the join needs (partial success). */
  public long spansRejected() {
    return spansRejected.get();
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
    Map<String, Long> out = new TreeMap<>();
    requestsRejected.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }
}
