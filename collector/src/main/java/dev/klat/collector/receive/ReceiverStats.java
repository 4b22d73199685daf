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
