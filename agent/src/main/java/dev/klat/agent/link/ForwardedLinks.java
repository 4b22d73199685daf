package dev.klat.agent.link;

import dev.klat.agent.metrics.Counter;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The link of an output record whose application forwarded its input's trace context instead of
 * producing on the thread that iterated the input (Kafka Streams copies the input's headers, and so
 * its {@code traceparent}, to the records it produces from it): JVM-wide, from the upstream
 * producer span id (the parent id in a sampled consumed record's {@code traceparent}) to that
 * consumed record's {@link InputLink}.
 *
 * <p>Filled only for sampled consumed records (at most the consumer's span cap a second), read only
 * when an output record carries a {@code traceparent} and its thread has no poll-loop link: both
 * rare paths. Bounded: at most {@link #CAPACITY} entries, the oldest pushed out first, each
 * eviction counted. Lock-free; a key ring decides who is oldest, and racing writers may leave the
 * map briefly a few entries over its bound, never more than the writing threads.
 */
public final class ForwardedLinks {

  /** How many consumed records are remembered: a few seconds of sampled records at the cap. */
  public static final int CAPACITY = 4096;

  private static final long EMPTY = 0L;

  private final ConcurrentHashMap<Long, InputLink> byUpstreamSpanId =
      new ConcurrentHashMap<Long, InputLink>(2 * CAPACITY);
  private final AtomicLongArray ring;
  private final AtomicLong writes = new AtomicLong();
  private final Counter evictions;
  private final int capacity;

  /** A map of {@link #CAPACITY} entries whose evictions go to {@code evictions}. */
  public ForwardedLinks(Counter evictions) {
    this(CAPACITY, evictions);
  }

  ForwardedLinks(int capacity, Counter evictions) {
    this.capacity = capacity;
    this.ring = new AtomicLongArray(capacity);
    this.evictions = evictions != null ? evictions : new Counter();
  }

  /** Remembers {@code link} under the upstream producer span id its record's traceparent named. */
  public void put(long upstreamSpanId, InputLink link) {
    if (upstreamSpanId == EMPTY || link == null) {
      return;
    }
    if (byUpstreamSpanId.put(upstreamSpanId, link) != null) {
      return;
    }
    int slot = (int) (writes.getAndIncrement() % capacity);
    long evicted = ring.getAndSet(slot, upstreamSpanId);
    if (evicted != EMPTY && evicted != upstreamSpanId && byUpstreamSpanId.remove(evicted) != null) {
      evictions.increment();
    }
  }

  /** The link of the consumed record whose traceparent named {@code upstreamSpanId}, or null. */
  public InputLink get(long upstreamSpanId) {
    return upstreamSpanId == EMPTY ? null : byUpstreamSpanId.get(upstreamSpanId);
  }

  /** Entries pushed out by newer ones before they were read away, since start. */
  public long evictions() {
    return evictions.value();
  }

  public int size() {
    return byUpstreamSpanId.size();
  }
}
