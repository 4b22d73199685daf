package dev.klat.agent.consumer;

import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.metrics.Counter;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.SpanAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The spans of one share consumer's sampled deliveries that wait for the outcome of their
 * acknowledgement (section 11 of the latency model): a span leaves once the broker answered the
 * acknowledgement (with its time {@code K}, type and error), or when the agent gives up waiting:
 * the consumer received the record again, 60 s passed, too many deliveries wait, or the consumer
 * closed. Then it leaves with what is known of the acknowledgement, and is counted by reason.
 *
 * <p>Only sampled deliveries get here, so a map and an object per delivery are affordable. The
 * application's thread adds, acknowledges and sweeps; the network thread finishes deliveries with
 * the broker's answers: each delivery leaves once, whichever thread wins its flag, and nothing
 * blocks (a {@link ConcurrentHashMap}, a compare-and-set, a non-blocking export).
 */
final class ShareDeliveries {

  /** Deliveries one consumer keeps waiting; beyond it a new one leaves at once. */
  static final int MAX_PENDING = 1024;

  /** How long a delivery waits for its acknowledgement's outcome. */
  static final long TIMEOUT_NANOS = 60_000_000_000L;

  /** The application thread looks for timed-out deliveries at most this often. */
  static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;

  static final String ACCEPT = "accept";
  static final String RENEW = "renew";

  /** Why a delivery left without the outcome of its acknowledgement. */
  enum GiveUp {
    REDELIVERED("redelivered"),
    TIMEOUT("timeout"),
    OVERFLOW("overflow"),
    CLOSED("closed");

    final String reason;

    GiveUp(String reason) {
      this.reason = reason;
    }
  }

  /** Where finished spans go: the exporter, in production. */
  interface SpanSink {
    void export(SpanRecord span);
  }

  /** Counts the deliveries that left without an outcome. */
  interface GiveUpCounters {
    Counter counter(GiveUp reason);
  }

  /** One sampled delivery of a record to this consumer. */
  static final class Delivery {
    final String topic;
    final int partition;
    final long offset;
    final SpanRecord span;
    final long createdNanos;
    private final AtomicBoolean finished = new AtomicBoolean();
    // Written by the application's thread, read by whichever thread finishes the delivery.
    private volatile long acknowledgedEpochNanos;
    private volatile String acknowledgedType;

    Delivery(String topic, int partition, long offset, SpanRecord span, long createdNanos) {
      this.topic = topic;
      this.partition = partition;
      this.offset = offset;
      this.span = span;
      this.createdNanos = createdNanos;
    }

    /**
     * The application acknowledged the delivery: a renewal counts only while no acknowledgement of
     * another type was made (section 11: {@code K} and the type are the last final one's).
     */
    void acknowledged(String type, long epochNanos) {
      String previous = acknowledgedType;
      if (RENEW.equals(type) && previous != null && !RENEW.equals(previous)) {
        return;
      }
      acknowledgedEpochNanos = epochNanos;
      acknowledgedType = type;
    }

    boolean isAcknowledged() {
      return acknowledgedType != null;
    }

    String acknowledgedType() {
      return acknowledgedType;
    }

    private Key key() {
      return new Key(topic, partition, offset);
    }
  }

  private final ConcurrentHashMap<Key, Delivery> pending = new ConcurrentHashMap<Key, Delivery>();
  private final TimeSource time;
  private final SpanSink sink;
  private final GiveUpCounters counters;
  private long lastSweepNanos;

  ShareDeliveries(TimeSource time, SpanSink sink, GiveUpCounters counters) {
    this.time = time;
    this.sink = sink;
    this.counters = counters;
    this.lastSweepNanos = time.nanoTime();
  }

  boolean isEmpty() {
    return pending.isEmpty();
  }

  int size() {
    return pending.size();
  }

  /**
   * A new delivery, with its span complete up to {@code P}. An earlier delivery of the same record
   * to this consumer still waiting ended without an outcome before this one began: it leaves now.
   */
  void add(Delivery delivery) {
    Delivery earlier = pending.put(delivery.key(), delivery);
    if (earlier != null && earlier != delivery) {
      giveUp(earlier, GiveUp.REDELIVERED);
    }
    if (pending.size() > MAX_PENDING) {
      giveUp(delivery, GiveUp.OVERFLOW);
    }
  }

  /** The delivery of this record waiting here, or null. */
  Delivery find(String topic, int partition, long offset) {
    return pending.isEmpty() ? null : pending.get(new Key(topic, partition, offset));
  }

  /** The application acknowledged the record {@code type} at {@code epochNanos}. */
  void acknowledged(String topic, int partition, long offset, String type, long epochNanos) {
    Delivery delivery = find(topic, partition, offset);
    if (delivery != null) {
      delivery.acknowledged(type, epochNanos);
    }
  }

  /**
   * Implicit acknowledgement ({@code share.acknowledgement.mode=implicit}): the next {@code poll()}
   * or commit accepts every record not acknowledged yet.
   */
  void acceptAllUnacknowledged(long epochNanos) {
    for (Delivery delivery : pending.values()) {
      if (!delivery.isAcknowledged()) {
        delivery.acknowledged(ACCEPT, epochNanos);
      }
    }
  }

  /** The deliveries of one partition waiting here; empty (no allocation) when none wait. */
  List<Delivery> waitingOf(String topic, int partition) {
    List<Delivery> found = null;
    for (Delivery delivery : pending.values()) {
      if (delivery.partition == partition && delivery.topic.equals(topic)) {
        if (found == null) {
          found = new ArrayList<Delivery>(4);
        }
        found.add(delivery);
      }
    }
    return found == null ? java.util.Collections.<Delivery>emptyList() : found;
  }

  /**
   * The broker answered the delivery's acknowledgement of {@code type}: {@code error} is the simple
   * class name of its error, null when it took it. A renewal it took keeps the delivery waiting
   * (the record stays with this consumer); any other answer ends it.
   */
  void answered(Delivery delivery, String type, String error) {
    if (RENEW.equals(type) && error == null) {
      return;
    }
    if (!delivery.finished.compareAndSet(false, true)) {
      return;
    }
    pending.remove(delivery.key(), delivery);
    SpanRecord span = delivery.span;
    long acknowledgedAt = delivery.acknowledgedEpochNanos;
    if (acknowledgedAt != 0L) {
      span.put(SpanAttributes.SHARE_ACKNOWLEDGE_TIME, acknowledgedAt);
    }
    span.put(SpanAttributes.SHARE_ACKNOWLEDGE_TYPE, type);
    if (error != null) {
      span.put(SpanAttributes.SHARE_ACKNOWLEDGE_ERROR, error);
    }
    sink.export(span);
  }

  /** Deliveries that waited longer than {@link #TIMEOUT_NANOS} leave; at most once a second. */
  void sweep() {
    long now = time.nanoTime();
    if (now - lastSweepNanos < SWEEP_INTERVAL_NANOS || pending.isEmpty()) {
      return;
    }
    lastSweepNanos = now;
    for (Delivery delivery : pending.values()) {
      if (now - delivery.createdNanos > TIMEOUT_NANOS) {
        giveUp(delivery, GiveUp.TIMEOUT);
      }
    }
  }

  /** The consumer closed: every delivery still waiting leaves. */
  void closeAll() {
    for (Delivery delivery : pending.values()) {
      giveUp(delivery, GiveUp.CLOSED);
    }
  }

  /**
   * The delivery leaves without the broker's answer, with what the application did: its
   * acknowledgement's time and type when it made one (a renewal with no final acknowledgement after
   * it is the end {@code renew} of section 11), no error.
   */
  private void giveUp(Delivery delivery, GiveUp reason) {
    if (!delivery.finished.compareAndSet(false, true)) {
      return;
    }
    pending.remove(delivery.key(), delivery);
    String type = delivery.acknowledgedType;
    if (type != null) {
      delivery.span.put(SpanAttributes.SHARE_ACKNOWLEDGE_TIME, delivery.acknowledgedEpochNanos);
      delivery.span.put(SpanAttributes.SHARE_ACKNOWLEDGE_TYPE, type);
    }
    counters.counter(reason).increment();
    sink.export(delivery.span);
  }

  /** A record's identity within one consumer: its topic, partition and offset. */
  private static final class Key {
    private final String topic;
    private final int partition;
    private final long offset;

    Key(String topic, int partition, long offset) {
      this.topic = topic;
      this.partition = partition;
      this.offset = offset;
    }

    @Override
    public boolean equals(Object other) {
      if (!(other instanceof Key)) {
        return false;
      }
      Key key = (Key) other;
      return offset == key.offset && partition == key.partition && topic.equals(key.topic);
    }

    @Override
    public int hashCode() {
      return (topic.hashCode() * 31 + partition) * 31 + (int) (offset ^ (offset >>> 32));
    }
  }
}
