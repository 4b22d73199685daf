package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.model.EstimationMethod;
import java.util.function.Supplier;

/**
 * {@code H} read from the consumer's side ({@code consumer-fetch-wait}). The record was in the
 * fetch response, so it was committed before the leader began answering that fetch: {@code R} less
 * the leader's mean consumer-fetch response time ({@code FetchConsumer} throttle, response queue
 * and send). That moment bounds whatever the worse sources say of {@code H}, and is {@code H}
 * itself when the fetch was waiting at the leader for the record (see {@link #waitedForCommit}).
 *
 * <p>{@code H} belongs to the record, not to the group: a group whose fetch waited places it for
 * the record, and a group reading it later (behind, or waiting for more bytes) shares it.
 *
 * <p>Tried before the request-metric estimate, which it overrides when its evidence holds (a
 * waiting fetch is completed by the high watermark passing the record, so it marks {@code H} better
 * than the follower-fetch means do); it asks the worse sources first because the estimate's {@code
 * H} is part of that evidence.
 */
final class ConsumerFetchWait implements BrokerInstantSource {

  /**
   * A fetch sent this soon after the response that found its record uncommitted asked before the
   * record was committed, or within this much of it: a consumer polling in a tight loop sends its
   * next fetch well within it, one whose application works between polls does not.
   */
  static final long ASKED_AGAIN_WITHIN_NANOS = 2_000_000L;

  private final BrokerTimings timings;

  ConsumerFetchWait(BrokerTimings timings) {
    this.timings = timings;
  }

  @Override
  public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    BrokerInstant fallback = worse.get();
    // Its evidence needs both sides: acks from the producer, the fetch from the consumer.
    if (record.producer() == null || record.consumer() == null) {
      return fallback;
    }
    long responseNanos = responseNanos(record);
    if (responseNanos < 0) {
      return fallback;
    }
    ProducerSpan p = record.producer();
    ConsumerSpan c = record.consumer();
    long answeredNanos = record.fetchResponseNanos() - responseNanos;
    long fallbackNanos = record.onProducerClock(fallback);
    boolean fromBroker = fallback.brokerHost() != null;
    if (waitedForCommit(p, c, fromBroker, record.fetchRequestNanos(), fallbackNanos)) {
      record.waitedCommitNanos(answeredNanos);
      return answered(record, answeredNanos, fallback, EstimationMethod.CONSUMER_FETCH_WAIT);
    }
    if (record.waitedCommitNanos() != Long.MIN_VALUE) {
      long shared = Math.min(record.waitedCommitNanos(), answeredNanos);
      return answered(record, shared, fallback, EstimationMethod.CONSUMER_FETCH_WAIT);
    }
    if (fallbackNanos > answeredNanos) {
      return answered(record, answeredNanos, fallback, fallback.method());
    }
    return fallback;
  }

  // Read from the consumer's R, so on the consumer's clock whatever the producer-clock arithmetic.
  private static BrokerInstant answered(
      BrokerLookup record, long producerNanos, BrokerInstant fallback, EstimationMethod method) {
    return BrokerInstant.onConsumer(
        record.onConsumerClock(producerNanos), fallback.brokerHost(), method);
  }

  /** How long the leader took from completing the fetch to having sent it, or -1 when unknown. */
  private long responseNanos(BrokerLookup record) {
    int leader = record.producer().leaderNodeId();
    if (leader < 0) {
      return -1;
    }
    RequestTimings fetch =
        timings.lookup(leader, Request.FETCH_CONSUMER, record.consumer().fetchResponseNanos());
    return fetch == null
        ? -1
        : fetch.throttleNanos() + fetch.responseQueueNanos() + fetch.responseSendNanos();
  }

  /**
   * Whether the consumer's fetch was waiting at the leader when the record was committed, so that
   * the leader answered it at {@code H} (section 4, {@code acks=0/1}): with {@code fetch.min.bytes}
   * at most 1, a waiting fetch is completed as soon as the high watermark passes any record of its
   * partitions, and this record was in the response. The response must have been read as it
   * arrived: a classic consumer whose application was busy outside {@code poll()} read it late, and
   * that wait is the application's, not the replication's. With {@code acks=all} the produce
   * response already places {@code H}.
   *
   * <p>Two kinds of evidence that the fetch asked before the record was committed; without either,
   * a lag taken for commit would hide the consumer's lag, so the bound alone applies:
   *
   * <ul>
   *   <li>The consumer's own: its previous response for the partition found the record not yet
   *       committed, and this fetch went out at most {@link #ASKED_AGAIN_WITHIN_NANOS} after it.
   *       Should the record have been committed in that gap, the fetch found it at once, and taking
   *       {@code H} at its answer errs by the gap and the fetch's round trip.
   *   <li>The broker's estimate of {@code H}, from the follower fetch means: a fetch sent before
   *       it. The means place {@code H} early when replication is slow, never so late that a
   *       consumer that is behind (its fetch sent well after {@code H}) passes.
   * </ul>
   */
  static boolean waitedForCommit(
      ProducerSpan p, ConsumerSpan c, boolean commitFromBroker, long fetchRequest, long commit) {
    if (p.acksAll()
        || c.evidence().fetchMinBytes() < 0
        || c.evidence().fetchMinBytes() > 1
        || !c.responseReadPromptly()) {
      return false;
    }
    return askedBeforeCommit(c) || (commitFromBroker && fetchRequest <= commit);
  }

  // Both instants are on the consumer's clock: no offset enters.
  private static boolean askedBeforeCommit(ConsumerSpan c) {
    long askedAgainNanos = c.fetchRequestNanos() - c.uncommittedNanos();
    return c.uncommittedNanos() != 0
        && askedAgainNanos >= 0
        && askedAgainNanos <= ASKED_AGAIN_WITHIN_NANOS;
  }
}
