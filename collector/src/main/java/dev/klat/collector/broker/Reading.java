package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import java.util.Arrays;

/**
 * One scrape of one broker: for each request kind and phase, the histogram's all-time count and
 * mean (ms), the broker's ReplicaManager partition counts and ISR change counts, and its replica
 * fetchers' largest lag (all optional: older rules files lack them). Filled by the source that read
 * it, then only read; confined to the scraping thread.
 */
final class Reading {
  private static final int PHASES = Phase.ALL.length;

  /** When the values were read (the middle of the scrape), epoch nanoseconds. */
  final long epochNanos;

  private final long[] counts = new long[Phase.REQUESTS.length * PHASES];
  private final double[] meansMs = new double[counts.length];
  private long leaders = -1;
  private long partitions = -1;
  private long underMinIsr = -1;
  private long isrShrinks = -1;
  private long isrExpands = -1;
  private long maxLagMessages = -1;

  Reading(long epochNanos) {
    this.epochNanos = epochNanos;
    Arrays.fill(counts, -1);
    Arrays.fill(meansMs, Double.NaN);
  }

  private static int slot(Request request, Phase phase) {
    return request.ordinal() * PHASES + phase.ordinal();
  }

  void count(Request request, Phase phase, long count) {
    counts[slot(request, phase)] = count;
  }

  void meanMs(Request request, Phase phase, double meanMs) {
    meansMs[slot(request, phase)] = meanMs;
  }

  /** ReplicaManager {@code LeaderCount}; -1 (the default) when the scrape did not have it. */
  void leaders(long count) {
    leaders = count;
  }

  /** ReplicaManager {@code PartitionCount}; -1 when the scrape did not have it. */
  void partitions(long count) {
    partitions = count;
  }

  /** ReplicaManager {@code UnderMinIsrPartitionCount}; -1 when the scrape did not have it. */
  void underMinIsr(long count) {
    underMinIsr = count;
  }

  /** The broker's partition counts as this scrape read them (each -1 when missing). */
  BrokerTimings.Partitions partitions() {
    return new BrokerTimings.Partitions(leaders, partitions, underMinIsr);
  }

  /**
   * ReplicaManager {@code IsrShrinksPerSec} {@code Count}, since the broker started; -1 missing.
   */
  void isrShrinks(long count) {
    isrShrinks = count;
  }

  long isrShrinks() {
    return isrShrinks;
  }

  /**
   * ReplicaManager {@code IsrExpandsPerSec} {@code Count}, since the broker started; -1 missing.
   */
  void isrExpands(long count) {
    isrExpands = count;
  }

  long isrExpands() {
    return isrExpands;
  }

  /**
   * ReplicaFetcherManager {@code MaxLag} ({@code clientId=Replica}): how many messages the most
   * lagging partition this broker follows is behind its leader; -1 missing.
   */
  void maxLagMessages(long messages) {
    maxLagMessages = messages;
  }

  long maxLagMessages() {
    return maxLagMessages;
  }

  /** The count, or -1 when the scrape did not have it. */
  long count(Request request, Phase phase) {
    return counts[slot(request, phase)];
  }

  /** The all-time mean in ms, or NaN when the scrape did not have it. */
  double meanMs(Request request, Phase phase) {
    return meansMs[slot(request, phase)];
  }

  /** True when every phase of the request kind has a count and a finite mean. */
  boolean complete(Request request) {
    for (Phase phase : Phase.ALL) {
      if (count(request, phase) < 0 || !Double.isFinite(meanMs(request, phase))) {
        return false;
      }
    }
    return true;
  }

  /** True when any RequestMetrics value was found at all. */
  boolean any() {
    for (long c : counts) {
      if (c >= 0) {
        return true;
      }
    }
    return false;
  }
}
