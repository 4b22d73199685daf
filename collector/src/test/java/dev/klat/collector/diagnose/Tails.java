package dev.klat.collector.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Capture;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Hand-built p99 tails and the diagnosis of them, for the rules' tests. */
final class Tails {
  private Tails() {}

  static final long MS = 1_000_000L;

  /** The window every test diagnoses: 5 minutes, from epoch 0 (the records drain at 1,000 ns). */
  static final long WINDOW_START = 0;

  static final long WINDOW_NANOS = 300_000 * MS;
  static final ProducerEvidence DEFAULT_PRODUCER =
      new ProducerEvidence(0, 16_384, 33_554_432, 5, 20, 4_000, 1, -1, -1, -1, true);
  static final ConsumerEvidence DEFAULT_CONSUMER = new ConsumerEvidence(1, 500, 500, -1, -1, -1);

  /** A tail record: segments in ms (produce, publish, commit, catch-up, fetch). */
  static TailRecord tailRecord(
      double[] segmentsMs,
      double lagMs,
      double bufferedMs,
      ProducerEvidence producer,
      ConsumerEvidence consumer) {
    long[] nanos = new long[5];
    long e2e = 0;
    for (int i = 0; i < 5; i++) {
      nanos[i] = (long) (segmentsMs[i] * MS);
      e2e += nanos[i];
    }
    return sampled(
        1_000,
        e2e,
        nanos,
        (long) (lagMs * MS),
        (long) (bufferedMs * MS),
        1,
        -1,
        -1,
        -1,
        producer,
        consumer);
  }

  /** A sampled record's breakdown (every instant known but maybe {@code L}), no transaction. */
  static TailRecord sampled(
      long drainEpochNanos,
      long e2eNanos,
      long[] segmentNanos,
      long lagNanos,
      long bufferedNanos,
      int leaderNodeId,
      int commitFollowerId,
      long requestQueueNanos,
      long requestLocalNanos,
      ProducerEvidence producer,
      ConsumerEvidence consumer) {
    return new TailRecord(
        drainEpochNanos,
        e2eNanos,
        segmentNanos,
        lagNanos,
        bufferedNanos,
        leaderNodeId,
        commitFollowerId,
        requestQueueNanos,
        requestLocalNanos,
        producer,
        consumer,
        Capture.SAMPLED,
        -1,
        -1,
        0,
        -1,
        -1);
  }

  /** The same record, committed by {@code followerId}'s fetch. */
  static TailRecord committedBy(TailRecord r, int followerId) {
    return sampled(
        r.drainEpochNanos(),
        r.e2eNanos(),
        r.segmentNanos(),
        r.lagNanos(),
        r.bufferedNanos(),
        r.leaderNodeId(),
        followerId,
        r.requestQueueNanos(),
        r.requestLocalNanos(),
        r.producer(),
        r.consumer());
  }

  /** The same record, drained at {@code drainMs} (epoch, ms) to {@code leader}. */
  static TailRecord drainedAt(TailRecord r, double drainMs, int leader) {
    return sampled(
        (long) (drainMs * MS),
        r.e2eNanos(),
        r.segmentNanos(),
        r.lagNanos(),
        r.bufferedNanos(),
        leader,
        r.commitFollowerId(),
        r.requestQueueNanos(),
        r.requestLocalNanos(),
        r.producer(),
        r.consumer());
  }

  /** The same record, its produce request timed by the leader's probe (ms). */
  static TailRecord withRequestTimes(TailRecord r, double queueMs, double localMs) {
    return sampled(
        r.drainEpochNanos(),
        r.e2eNanos(),
        r.segmentNanos(),
        r.lagNanos(),
        r.bufferedNanos(),
        r.leaderNodeId(),
        r.commitFollowerId(),
        (long) (queueMs * MS),
        (long) (localMs * MS),
        r.producer(),
        r.consumer());
  }

  /** Ten records of these segments (ms), their produce requests timed by the probe (ms). */
  static List<TailRecord> probedTail(double queueMs, double localMs, double... segmentsMs) {
    TailRecord r = tailRecord(segmentsMs, 0, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER);
    return tail(10, withRequestTimes(r, queueMs, localMs));
  }

  static List<TailRecord> tail(int n, TailRecord r) {
    List<TailRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(r);
    }
    return out;
  }

  static DiagnosisReport diagnose(List<TailRecord> tail, BrokerTimings brokers) {
    return diagnose(tail, brokers, CommitWaits.NONE);
  }

  static DiagnosisReport diagnose(List<TailRecord> tail, BrokerTimings brokers, CommitWaits waits) {
    return Diagnosis.diagnose(summaryOf(tail), tail, brokers, waits, WINDOW_START, WINDOW_NANOS);
  }

  /** Ten records of these segments (ms), from the default producer and consumer. */
  static List<TailRecord> defaultTail(double... segmentsMs) {
    return tail(10, tailRecord(segmentsMs, 0, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER));
  }

  /** {@code n} records of these segments (ms), from this producer and the default consumer. */
  static List<TailRecord> producerTail(int n, ProducerEvidence producer, double... segmentsMs) {
    return tail(n, tailRecord(segmentsMs, 0, 1, producer, DEFAULT_CONSUMER));
  }

  static DiagnosisReport defaults(double... segmentsMs) {
    return diagnose(defaultTail(segmentsMs));
  }

  static void assertKnobs(DiagnosisReport report, String... knobs) {
    assertThat(report.findings()).extracting(Finding::knob).containsExactly(knobs);
  }

  static void assertExplains(DiagnosisReport report, double seconds) {
    assertThat(report.findings().get(0).explainedSeconds())
        .isCloseTo(seconds, org.assertj.core.data.Offset.offset(1e-9));
  }

  static DiagnosisReport diagnose(List<TailRecord> tail) {
    return diagnose(tail, BrokerTimings.NONE);
  }

  static BrokerTimings produceTimings(long queueMs, long localMs) {
    return produceTimings(queueMs, localMs, 0);
  }

  /** Broker 1's Produce timings over the interval that holds epoch 1,000 ns, where D is. */
  static BrokerTimings produceTimings(long queueMs, long localMs, long remoteMs) {
    BrokerTimings.RequestTimings t =
        new BrokerTimings.RequestTimings(
            100,
            queueMs * MS,
            localMs * MS,
            remoteMs * MS,
            0,
            0,
            0,
            (queueMs + localMs + remoteMs) * MS,
            0,
            2_000);
    return (node, request, at) ->
        node == 1 && request == BrokerTimings.Request.PRODUCE && at == 1_000 ? t : null;
  }

  /** These timings, with these brokers' partition counts (leaders, hosted, under min ISR). */
  static BrokerTimings withPartitions(
      BrokerTimings timings, Map<Integer, BrokerTimings.Partitions> partitions) {
    return new BrokerTimings() {
      @Override
      public RequestTimings lookup(int nodeId, Request request, long epochNanos) {
        return timings.lookup(nodeId, request, epochNanos);
      }

      @Override
      public Map<Integer, Partitions> partitions() {
        return partitions;
      }
    };
  }

  /**
   * These timings, with these brokers' replication: for the diagnosis's window only ({@link
   * #WINDOW_START}), as a store would answer for the scrapes since then.
   */
  static BrokerTimings withReplication(
      BrokerTimings timings, Map<Integer, BrokerTimings.Replication> replication) {
    return new BrokerTimings() {
      @Override
      public RequestTimings lookup(int nodeId, Request request, long epochNanos) {
        return timings.lookup(nodeId, request, epochNanos);
      }

      @Override
      public Map<Integer, Partitions> partitions() {
        return timings.partitions();
      }

      @Override
      public Map<Integer, Replication> replication(long sinceEpochNanos) {
        assertThat(sinceEpochNanos).isEqualTo(WINDOW_START);
        return replication;
      }
    };
  }

  /** Replication with these ISR changes (exact) and this replica fetcher lag. */
  static BrokerTimings.Replication replication(long shrinks, long expands, long maxLagMessages) {
    return new BrokerTimings.Replication(
        new BrokerTimings.Changes(shrinks, false),
        new BrokerTimings.Changes(expands, false),
        maxLagMessages);
  }

  /**
   * Broker 1 leads {@code leaders1}, brokers 2 and 3 lead {@code leaders2} and {@code leaders3}.
   */
  static Map<Integer, BrokerTimings.Partitions> leaders(
      long leaders1, long leaders2, long leaders3) {
    return Map.of(
        1, new BrokerTimings.Partitions(leaders1, 3 * leaders1, 0),
        2, new BrokerTimings.Partitions(leaders2, 3 * leaders2, 0),
        3, new BrokerTimings.Partitions(leaders3, 3 * leaders3, 0));
  }

  /** Broker 1's FetchConsumer timings over the interval that holds epoch 1,000 ns. */
  static BrokerTimings fetchTimings(long queueMs) {
    BrokerTimings.RequestTimings t =
        new BrokerTimings.RequestTimings(100, queueMs * MS, 0, 0, 0, 0, 0, queueMs * MS, 0, 2_000);
    return (node, request, at) ->
        node == 1 && request == BrokerTimings.Request.FETCH_CONSUMER && at == 1_000 ? t : null;
  }

  static RecentBreakdowns.Summary summaryOf(List<TailRecord> tail) {
    Map<String, RecentBreakdowns.SegmentQuantiles> segments = new LinkedHashMap<>();
    for (Segment s : Segment.values()) {
      segments.put(s.id(), new RecentBreakdowns.SegmentQuantiles(1000, 2 * MS, 10 * MS));
    }
    return new RecentBreakdowns.Summary(
        1000, 10 * MS, 100 * MS, 150 * MS, tail.size(), Map.of(), Map.of(), segments, Map.of());
  }
}
