package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.RecordKey;
import java.util.function.ToLongFunction;

/**
 * What a {@link BrokerInstantSource} is asked about one joined record: its two spans, the {@code L}
 * already chosen, the placement of any instant on the producer's timeline, and the {@code H} a
 * consumer group that waited for the record placed, which later groups share. Built by the {@link
 * Correlator} for one join; not thread-safe.
 *
 * <p>A tail record seen by one side only (section 8 of the latency model) has one span: {@link
 * #producerOnly} or {@link #consumerOnly}, whose {@link #producer()} or {@link #consumer()} is then
 * null; a source that needs the missing side passes the question on. The timeline of a
 * consumer-only record is the consumer's clock ("producer clock" below then means it).
 */
public final class BrokerLookup {
  private final ProducerSpan producer;
  private final ConsumerSpan consumer;
  private BrokerInstant append;
  private long consumerOffsetNanos;
  private ToLongFunction<String> brokerOffsetNanos = host -> 0;
  private long waitedCommitNanos;
  private int commitFollowerId = -1;
  private int probedLeaderId = -1;
  private long requestQueueNanos = -1;
  private long requestLocalNanos = -1;

  /**
   * @param waitedCommitNanos {@code H} on the producer's clock as a group whose fetch waited for
   *     the record placed it, or {@link Long#MIN_VALUE}
   */
  public BrokerLookup(ProducerSpan producer, ConsumerSpan consumer, long waitedCommitNanos) {
    this.producer = producer;
    this.consumer = consumer;
    this.waitedCommitNanos = waitedCommitNanos;
  }

  /** A producer tail span no consumer group joined: no consumer instants. */
  public static BrokerLookup producerOnly(ProducerSpan producer) {
    return new BrokerLookup(producer, null, Long.MIN_VALUE);
  }

  /** A consumer tail span without its producer span: no producer instants, no leader id. */
  public static BrokerLookup consumerOnly(ConsumerSpan consumer) {
    return new BrokerLookup(null, consumer, Long.MIN_VALUE);
  }

  /** The producer span, or null for a consumer-only record. */
  ProducerSpan producer() {
    return producer;
  }

  /** The consumer span, or null for a producer-only record. */
  ConsumerSpan consumer() {
    return consumer;
  }

  /** The record. */
  RecordKey key() {
    return producer != null ? producer.key() : consumer.key();
  }

  /**
   * The partition leader's node id: the producer's, else the one whose broker probe had the record;
   * -1 when unknown.
   */
  public int leaderNodeId() {
    return producer != null ? producer.leaderNodeId() : probedLeaderId;
  }

  void probedLeaderId(int brokerId) {
    this.probedLeaderId = brokerId;
  }

  /** The {@code L} the better sources chose, or null; set before {@code H} is asked for. */
  BrokerInstant append() {
    return append;
  }

  public void append(BrokerInstant append) {
    this.append = append;
  }

  /**
   * Sets the clock offsets the correlator estimated: {@code clock(consumer) - clock(producer)}, and
   * the same per broker clock domain (asked only for a broker-clock instant).
   */
  public void offsets(long consumerOffsetNanos, ToLongFunction<String> brokerOffsetNanos) {
    this.consumerOffsetNanos = consumerOffsetNanos;
    this.brokerOffsetNanos = brokerOffsetNanos;
  }

  /** {@code instant} on the producer's clock, where the breakdown is computed. */
  public long onProducerClock(BrokerInstant instant) {
    return switch (instant.clock()) {
      case PRODUCER -> instant.nanos();
      case CONSUMER -> instant.nanos() - consumerOffsetNanos;
      case BROKER -> instant.nanos() - brokerOffsetNanos.applyAsLong(instant.brokerHost());
    };
  }

  /** A producer-clock instant read back on the consumer's clock. */
  long onConsumerClock(long producerNanos) {
    return producerNanos + consumerOffsetNanos;
  }

  /** {@code F} on the producer's clock. */
  public long fetchRequestNanos() {
    return consumer.fetchRequestNanos() - consumerOffsetNanos;
  }

  /** {@code R} on the producer's clock. */
  public long fetchResponseNanos() {
    return consumer.fetchResponseNanos() - consumerOffsetNanos;
  }

  /** The follower whose fetch moved the high watermark over the record, or -1 when unknown. */
  public int commitFollowerId() {
    return commitFollowerId;
  }

  void commitFollowerId(int followerId) {
    this.commitFollowerId = followerId;
  }

  /**
   * The time the produce request that appended the record spent in its leader's request queue, as
   * the leader's probe timed it, or -1 when unknown.
   */
  public long requestQueueNanos() {
    return requestQueueNanos;
  }

  /** That request's time from the request queue to the append, or -1 when unknown. */
  public long requestLocalNanos() {
    return requestLocalNanos;
  }

  void requestNanos(long queueNanos, long localNanos) {
    this.requestQueueNanos = queueNanos;
    this.requestLocalNanos = localNanos;
  }

  /** {@code H} on the producer's clock as a waiting group placed it, or {@link Long#MIN_VALUE}. */
  public long waitedCommitNanos() {
    return waitedCommitNanos;
  }

  void waitedCommitNanos(long nanos) {
    this.waitedCommitNanos = nanos;
  }
}
