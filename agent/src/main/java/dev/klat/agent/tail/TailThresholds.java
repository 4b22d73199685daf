package dev.klat.agent.tail;

import dev.klat.agent.metrics.LatencyHistogram;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every tail threshold of one agent: hands out a {@link TailThreshold} per key from {@code
 * klat.tail.producer.threshold} and {@code klat.tail.consumer.threshold}, and moves the {@code
 * auto} ones' windows in {@link #refresh}, which the exporter thread calls about once a second (the
 * windows move every {@value RecentP99#SLOT_SECONDS} s).
 *
 * <p>The {@code for...} methods are called once per key, when the side creates the key's
 * instruments, from any thread; they take no lock. At most {@value #MAX_AUTO_THRESHOLDS} {@code
 * auto} thresholds are kept (each holds about 4 KB); keys beyond that get {@link
 * TailThreshold#NEVER}, counted in {@link #refusedAutoThresholds()}.
 */
public final class TailThresholds {

  /** The most {@code auto} thresholds one agent keeps. */
  public static final int MAX_AUTO_THRESHOLDS = 1024;

  private final boolean enabled;
  private final ThresholdSpec producer;
  private final ThresholdSpec consumer;
  private final ConcurrentLinkedQueue<TailThreshold> autoThresholds =
      new ConcurrentLinkedQueue<TailThreshold>();
  private final AtomicInteger autoCount = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();

  /**
   * @param enabled {@code klat.tail.enabled}: false hands out {@link TailThreshold#NEVER} only
   * @param producer {@code klat.tail.producer.threshold}
   * @param consumer {@code klat.tail.consumer.threshold}
   */
  public TailThresholds(boolean enabled, ThresholdSpec producer, ThresholdSpec consumer) {
    this.enabled = enabled;
    this.producer = producer;
    this.consumer = consumer;
  }

  /** Whether tail capture is on ({@code klat.tail.enabled}). */
  public boolean enabled() {
    return enabled;
  }

  /**
   * The producer threshold of {@code topic} for one producer.
   *
   * @param topic the record's topic
   * @param everyRecord that producer's every-record {@code A - S} histogram of the topic, which an
   *     {@code auto} threshold follows
   */
  public TailThreshold forProducer(String topic, LatencyHistogram everyRecord) {
    return threshold(producer, topic, everyRecord);
  }

  /**
   * The consumer threshold of {@code topic} for one consumer (its group).
   *
   * @param topic the record's topic
   * @param everyRecord the durations an {@code auto} threshold follows, for this topic and group:
   *     the every-record {@code P - timestamp} histogram, or, where there is none (a {@code
   *     LogAppendTime} topic's {@code P - L}), a histogram the consumer side records into itself
   */
  public TailThreshold forConsumer(String topic, LatencyHistogram everyRecord) {
    return threshold(consumer, topic, everyRecord);
  }

  private TailThreshold threshold(ThresholdSpec spec, String topic, LatencyHistogram everyRecord) {
    if (!enabled) {
      return TailThreshold.NEVER;
    }
    long nanos = spec.nanosFor(topic);
    if (nanos != ThresholdSpec.AUTO) {
      return TailThreshold.fixed(nanos);
    }
    if (autoCount.incrementAndGet() > MAX_AUTO_THRESHOLDS) {
      autoCount.decrementAndGet();
      refused.incrementAndGet();
      return TailThreshold.NEVER;
    }
    TailThreshold threshold = new TailThreshold(Long.MAX_VALUE, new RecentP99(everyRecord));
    autoThresholds.add(threshold);
    return threshold;
  }

  /**
   * Moves every {@code auto} threshold's window (when its slot has passed) and updates what the hot
   * path reads. Off the hot path: the exporter thread, about once a second; tests call it with
   * their clock.
   */
  public synchronized void refresh(long nowNanos) {
    for (TailThreshold threshold : autoThresholds) {
      threshold.refresh(nowNanos);
    }
  }

  /** How many {@code auto} thresholds are kept. */
  public int autoThresholdCount() {
    return autoCount.get();
  }

  /**
   * How many keys got {@link TailThreshold#NEVER} because {@link #MAX_AUTO_THRESHOLDS} were kept.
   */
  public int refusedAutoThresholds() {
    return refused.get();
  }
}
