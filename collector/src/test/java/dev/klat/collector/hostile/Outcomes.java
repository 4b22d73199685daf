package dev.klat.collector.hostile;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** What the attacks and the honest stream saw, counted by name. Thread-safe. */
final class Outcomes {
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  void add(String what) {
    counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
  }

  long count(String what) {
    AtomicLong n = counts.get(what);
    return n == null ? 0 : n.get();
  }

  @Override
  public String toString() {
    Map<String, Long> sorted = new TreeMap<>();
    counts.forEach((k, v) -> sorted.put(k, v.get()));
    return sorted.toString();
  }
}
