package dev.klat.collector.correlate.instants;

import static dev.klat.collector.correlate.join.Spans.ms;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.instants.RequestMetricsEstimates.Estimate;
import dev.klat.collector.correlate.instants.Sources.Found;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TimePoint;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestMetricsEstimatesTest {

  private static final long MS = 1_000_000L;

  /** Mean phases in milliseconds: queue, local, remote, response queue, response send. */
  private static RequestTimings timings(
      double queue, double local, double remote, double responseQueue, double responseSend) {
    long q = Math.round(queue * MS);
    long l = Math.round(local * MS);
    long r = Math.round(remote * MS);
    long rq = Math.round(responseQueue * MS);
    long rs = Math.round(responseSend * MS);
    return new RequestTimings(100, q, l, r, 0, rq, rs, q + l + r + rq + rs, 0, 1);
  }

  @Test
  void aDelayedLinkIsSplitEvenlyAroundTheBrokersOwnTime() {
    // 50 ms each way between producer and leader; the broker spends 1 ms before the append, 2 ms
    // waiting for replicas and 0.5 ms answering: A - D = 103.5 ms.
    RequestTimings produce = timings(0.5, 0.5, 2, 0.25, 0.25);
    Estimate e =
        RequestMetricsEstimates.estimate(
            ms(0), ms(103.5), true, produce, produce.remoteNanos(), null, 100 * MS);
    assertThat(e.appendNanos()).isEqualTo(ms(51));
    assertThat(e.commitNanos()).isEqualTo(ms(53));
    assertThat(e.commitMethod()).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
  }

  @Test
  void withAcksAllARecordSlowerThanTheMeanWaitedLongerForTheReplicas() {
    // Mean remote 30 ms; this record's round trip is 20 ms longer than the path's fastest.
    RequestTimings produce = timings(0.5, 0.5, 30, 0, 0);
    long floor = 0;
    Estimate e =
        RequestMetricsEstimates.estimate(
            ms(0), ms(51.2), true, produce, produce.remoteNanos(), null, floor);
    // Network floor 0: append after queue and local; the 20.2 ms above the means is replica wait.
    assertThat(e.appendNanos()).isEqualTo(ms(1));
    assertThat(e.commitNanos()).isEqualTo(ms(51.2));
  }

  @Test
  void withAcksAllARecordFasterThanTheMeanTakesItsShortfallFromTheReplicaWaitFirst() {
    RequestTimings produce = timings(1, 1, 30, 0, 0);
    // Round trip 12 ms: 20 ms shorter than the means, so the replica wait was 10 ms.
    Estimate e =
        RequestMetricsEstimates.estimate(
            ms(0), ms(12), true, produce, produce.remoteNanos(), null, 0);
    assertThat(e.appendNanos()).isEqualTo(ms(2));
    assertThat(e.commitNanos()).isEqualTo(ms(12));
    // Faster still than queue and append alone: everything shrinks, nothing goes negative.
    Estimate tiny =
        RequestMetricsEstimates.estimate(
            ms(0), ms(1), true, produce, produce.remoteNanos(), null, 0);
    assertThat(tiny.appendNanos()).isEqualTo(ms(1));
    assertThat(tiny.commitNanos()).isEqualTo(ms(1));
  }

  @Test
  void withAcksOneTheCommitComesFromTheFollowerFetches() {
    RequestTimings produce = timings(0.5, 0.5, 0, 0.5, 0.5);
    // The follower's fetch is answered on the append (0.2 + 0.3 ms) and the next one moves the
    // high watermark (0.1 + 0.4 ms); the 400 ms long-poll wait is not lag.
    RequestTimings follower = timings(0.1, 0.4, 400, 0.2, 0.3);
    Estimate e =
        RequestMetricsEstimates.estimate(
            ms(0), ms(4), false, produce, produce.remoteNanos(), follower, 2 * MS);
    // Network floor 2 ms: 1 ms up, then 1 ms in the broker before the append.
    assertThat(e.appendNanos()).isEqualTo(ms(2));
    assertThat(e.commitNanos()).isEqualTo(ms(3));
    assertThat(e.commitMethod()).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
    // Without follower metrics the commit is left to the H <= R bound.
    Estimate unknown =
        RequestMetricsEstimates.estimate(
            ms(0), ms(4), false, produce, produce.remoteNanos(), null, 0);
    assertThat(unknown.commitNanos()).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void withAcksOneASlowRecordsExtraTimeIsNetworkHalfEachWay() {
    RequestTimings produce = timings(0.5, 0.5, 0, 0.5, 0.5);
    // Floor 2 ms, this record 12 ms: 8 ms above the floor and the means, 4 ms of it upstream.
    Estimate e =
        RequestMetricsEstimates.estimate(
            ms(0), ms(12), false, produce, produce.remoteNanos(), null, 2 * MS);
    assertThat(e.appendNanos()).isEqualTo(ms(6));
  }

  @Test
  void withAcksOneTheReplicaWaitOfOtherProducersIsNotSubtracted() {
    // The leader also serves acks=all producers: a 200 ms mean RemoteTimeMs that no acks=1
    // request waited. 3 ms round trip, 1 ms floor, 1 ms in the broker before the append.
    RequestTimings produce = timings(0.5, 0.5, 200, 0.5, 0.5);
    Estimate e =
        RequestMetricsEstimates.estimate(
            ms(0), ms(3), false, produce, produce.remoteNanos(), null, MS);
    assertThat(e.appendNanos()).isEqualTo(ms(1.5));
  }

  @Test
  void theAppendNeverPassesTheAck() {
    RequestTimings produce = timings(50, 50, 0, 0, 0);
    Estimate e =
        RequestMetricsEstimates.estimate(
            ms(0), ms(5), false, produce, produce.remoteNanos(), null, 0);
    assertThat(e.appendNanos()).isLessThanOrEqualTo(ms(5));
    assertThat(e.appendNanos()).isGreaterThanOrEqualTo(ms(0));
  }

  @Test
  void theNetworkFloorIsLearntPerProducerAndLeaderFromTheFastestRecord() {
    Map<Request, RequestTimings> leader1 = new EnumMap<>(Request.class);
    leader1.put(Request.PRODUCE, timings(0.5, 0.5, 0, 0, 0));
    BrokerTimings timings = (node, request, at) -> node == 1 ? leader1.get(request) : null;
    RequestMetricsEstimates estimates = new RequestMetricsEstimates(timings, 60_000 * MS);
    ConsumerSpan consumer = Spans.consumer(1, "g", 200, 300, 301);
    // A fast record (5 ms round trip: 4 ms of network), then a slow one (45 ms).
    Found fast = Sources.lookup(Spans.producer(1, 0, 10, 15), consumer, estimates);
    Found slow = Sources.lookup(Spans.producer(2, 0, 20, 65), consumer, estimates);
    assertThat(fast.producerClock()).isTrue();
    assertThat(fast.brokerHost()).isEqualTo("broker-1");
    assertThat(fast.appendNanos()).isEqualTo(ms(13));
    // acks=1 and no follower metrics: H unknown.
    assertThat(fast.hasCommit()).isFalse();
    // The slow record: 2 ms of the 4 ms floor up, plus half of its 40 ms excess, then 1 ms.
    assertThat(slow.appendNanos()).isEqualTo(ms(20 + 2 + 20 + 1));
    assertThat(slow.appendMethod()).isEqualTo(EstimationMethod.PRODUCE_REQUEST_METRICS);
  }

  @Test
  void oneSlowReplicaFetchDoesNotTeachThePathAShorterNetwork() {
    // The leader's intervals: a quiet one (mean replica wait 3 ms) until 1 s, then one in which a
    // slow replica fetch raised the mean to 80 ms.
    RequestTimings quiet = timings(0.5, 0.5, 3, 0, 0);
    RequestTimings stalled = timings(0.5, 0.5, 80, 0, 0);
    BrokerTimings timings =
        (node, request, at) -> request != Request.PRODUCE ? null : at < ms(1_000) ? quiet : stalled;
    RequestMetricsEstimates estimates = new RequestMetricsEstimates(timings, 60_000 * MS);
    ConsumerSpan consumer = Spans.consumer(1, "g", 5_000, 5_001, 5_002);
    // 100 ms of network each round trip. In the quiet interval a record at the means: 104 ms.
    Sources.lookup(Spans.acksAll(Spans.producer(1, 0, 10, 114)), consumer, estimates);
    // In the stalled interval a record that waited only 2 ms for its replicas: 103 ms, 77 ms
    // below its interval's means.
    Sources.lookup(Spans.acksAll(Spans.producer(2, 0, 1_100, 1_203)), consumer, estimates);
    // Then a record that waited 49 ms for its replicas: its append is still 50 ms after D.
    Found slow =
        Sources.lookup(Spans.acksAll(Spans.producer(3, 0, 1_200, 1_350)), consumer, estimates);
    assertThat(slow.appendNanos()).isBetween(ms(1_250), ms(1_251.5));
    assertThat(slow.commitNanos()).isBetween(ms(1_299), ms(1_300.5));
  }

  @Test
  void aLeaderWithoutMetricsFallsBackToTheTimestampOrToNothing() {
    RequestMetricsEstimates estimates = new RequestMetricsEstimates(BrokerTimings.NONE, MS);
    LogAppendTimeSource timestamp = new LogAppendTimeSource();
    ConsumerSpan consumer = Spans.consumer(1, "g", 200, 300, 301);
    assertThat(Sources.lookup(Spans.producer(1, 0, 10, 15), consumer, timestamp, estimates))
        .isEqualTo(Found.NONE);
    long lMs = Spans.T0 / 1_000_000 + 12;
    Found t =
        Sources.lookup(
            Spans.producer(Spans.key(1), Spans.PRODUCER_HOST, 0, 10, 15, lMs),
            consumer,
            timestamp,
            estimates);
    assertThat(t.appendMethod()).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(t.producerClock()).isFalse();
  }

  @Test
  void aLogAppendTimeTopicKeepsItsTimestampAndTakesTheCommitFromTheMetrics() {
    Map<Request, RequestTimings> leader1 = new EnumMap<>(Request.class);
    leader1.put(Request.PRODUCE, timings(0.5, 0.5, 3, 0, 0));
    RequestMetricsEstimates estimates =
        new RequestMetricsEstimates((node, request, at) -> leader1.get(request), 60_000 * MS);
    long lMs = Spans.T0 / 1_000_000 + 12;
    ProducerSpan p =
        Spans.acksAll(Spans.producer(Spans.key(1), Spans.PRODUCER_HOST, 0, 10, 15, lMs));
    Found t =
        Sources.lookup(
            p, Spans.consumer(1, "g", 200, 300, 301), new LogAppendTimeSource(), estimates);
    assertThat(t.producerClock()).isFalse();
    assertThat(t.appendMethod()).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    // 5 ms round trip, 4 ms of broker time: all 1 ms network, so the replica wait is the mean.
    Estimate e = estimates.lookup(p).estimate();
    assertThat(e.commitNanos() - e.appendNanos()).isEqualTo(3 * MS);
    assertThat(t.commitMethod()).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    // With acks=all, H is placed back from the ack by the response: no response time in the means
    // here, and half the 1 ms network.
    assertThat(p.ackNanos() - t.commitNanos()).isEqualTo(500_000);
  }

  @Test
  void withALogAppendTimeAndAcksAllAWaitBeforeTheAppendStaysOutOfCommit() {
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c = correlatorWithProduceTimings(timings(0.5, 0.5, 3, 0.5, 0.5), out);
    // A fast record teaches the path its network floor: 5 ms round trip, 5 ms broker time, so 0.
    long base = Spans.T0 / 1_000_000;
    c.offerProducer(
        Spans.acksAll(Spans.producer(Spans.key(1), Spans.PRODUCER_HOST, 0, 1, 6, base + 2)));
    c.offerConsumer(Spans.consumer(1, "g", 3, 9, 12));
    // Then a record that waited 40 ms unread behind another request before the leader appended it
    // at 45 ms (its timestamp), committed 3 ms later and answered 1 ms after that.
    c.offerProducer(
        Spans.acksAll(Spans.producer(Spans.key(2), Spans.PRODUCER_HOST, 0, 1, 49, base + 45)));
    c.offerConsumer(Spans.consumer(2, "g", 40, 50, 51));

    Breakdown b = out.get(1).breakdown();
    assertThat(b.method(Segment.PUBLISH)).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    // L = 45.5 ms less the broker offset; H = A - 1 ms of response = 48 ms: commit ~3 ms, not the
    // 40 ms wait, which stays in publish.
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(48));
    assertThat(b.nanos(Segment.COMMIT)).isBetween(1 * MS, 4 * MS);
    assertThat(b.nanos(Segment.PUBLISH)).isGreaterThan(40 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void theCorrelatorPlacesProducerClockEstimatesWithoutABrokerOffset() {
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c = correlatorWithProduceTimings(timings(0.5, 0.5, 3, 0, 0), out);
    c.offerProducer(Spans.acksAll(Spans.producer(1, 0, 2, 7)));
    c.offerConsumer(Spans.consumer(1, "g", 3, 9, 12));

    JoinedBreakdown joined = out.get(0);
    Breakdown b = joined.breakdown();
    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(2 * MS);
    // 5 ms round trip, 4 ms broker: 0.5 ms up, 1 ms before the append, 3 ms replica wait.
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(1_500_000);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(3 * MS);
    assertThat(b.quality(Segment.PUBLISH)).isEqualTo(Quality.ESTIMATED);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(joined.brokerOffset().offsetNanos()).isZero();
    assertThat(joined.brokerOffset().uncertaintyNanos()).isZero();
    assertThat(joined.flagged()).doesNotContain(Segment.PUBLISH, Segment.COMMIT);
  }

  @Test
  void withAcksOneTheReplicationTheLeaderDoesNotSeeIsLearntFromItsAcksAllRecords() {
    Map<Request, RequestTimings> leader1 = new EnumMap<>(Request.class);
    leader1.put(Request.PRODUCE, timings(0.25, 0.25, 8, 0.25, 0.25));
    // The follower turnaround the leader sees: 1 ms. The acks=all records waited 8 ms for the
    // replicas, so 7 ms of each replication happened where the leader's metrics do not look.
    leader1.put(Request.FETCH_FOLLOWER, timings(0.25, 0.25, 400, 0.25, 0.25));
    RequestMetricsEstimates instants =
        new RequestMetricsEstimates((node, request, at) -> leader1.get(request), 60_000 * MS);
    ProducerSpan acksOne = Spans.producer(1000, 999, 1000, 1002);
    ConsumerSpan reader = Spans.consumer(1000, "g", 990, 1100, 1101);
    Found before = Sources.lookup(acksOne, reader, instants);
    assertThat(before.commitNanos() - before.appendNanos()).isEqualTo(MS);

    for (int i = 0; i < RequestMetricsEstimates.MIN_UNSEEN_REPLICATION_SAMPLES; i++) {
      // D to A 10 ms: 1 ms of network, 0.5 before the append, 8 waiting, 0.5 answering.
      Sources.lookup(
          Spans.acksAll(Spans.producer(i, 9.0 * i, 10.0 * i, 10.0 * i + 10)), reader, instants);
    }
    Found after = Sources.lookup(acksOne, reader, instants);
    assertThat(after.commitMethod()).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
    assertThat(after.appendNanos()).isEqualTo(before.appendNanos());
    assertThat(after.commitNanos() - after.appendNanos()).isEqualTo(8 * MS);
  }

  /**
   * acks=1 on leader 1: Produce 0.5 ms queue and append, no replica wait, 0.5 ms response; the
   * follower fetch means say the high watermark moves 1 ms after the append; a consumer fetch
   * response takes 0.25 ms to queue and 0.25 ms to send.
   */
  private static Correlator acksOneCorrelator(List<JoinedBreakdown> out) {
    Map<Request, RequestTimings> leader1 = new EnumMap<>(Request.class);
    leader1.put(Request.PRODUCE, timings(0.25, 0.25, 0, 0.25, 0.25));
    leader1.put(Request.FETCH_FOLLOWER, timings(0.25, 0.25, 400, 0.25, 0.25));
    leader1.put(Request.FETCH_CONSUMER, timings(0.1, 0.1, 300, 0.25, 0.25));
    return new Correlator(
        new Correlator.Settings(10_000 * MS, 100, 60_000 * MS, 100),
        () -> 0L,
        BrokerInstants.requestMetrics((node, request, at) -> leader1.get(request), 60_000 * MS),
        out::add);
  }

  /**
   * The breakdown of the record D = 10, A = 12 ms on the acks=1 leader, read by {@code consumer}.
   */
  private static Breakdown acksOneRecordReadBy(ConsumerSpan consumer) {
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c = acksOneCorrelator(out);
    c.offerProducer(Spans.producer(1, 0, 10, 12));
    c.offerConsumer(consumer);
    return out.get(0).breakdown();
  }

  @Test
  void withAcksOneAWaitingConsumerPlacesTheCommitWhereTheLeaderAnsweredIt() {
    // D = 10, A = 12 ms: 1 ms of network, the append at 11 ms; the follower means put H at 12 ms.
    // The consumer's fetch went out at 5 ms, before the append, and came back at 30.5 ms: the
    // replication really took until 30 ms, and the leader answered the fetch then.
    Breakdown b =
        acksOneRecordReadBy(Spans.withFetchMinBytes(Spans.consumer(1, "g", 5, 30.5, 31), 1));
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.CONSUMER_FETCH_WAIT);
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(30));
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(19 * MS);
    // What is left of the fetch is the leader's response time; nothing was waiting for a poll.
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(MS / 2);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(MS / 2);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void withAcksOneAConsumerThatWasBehindKeepsItsLagInCatchUp() {
    // The same record, read by a consumer whose fetch went out at 200 ms, long after the commit,
    // and was answered at once.
    Breakdown b =
        acksOneRecordReadBy(Spans.withFetchMinBytes(Spans.consumer(1, "g", 200, 201, 202), 1));
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(12));
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(189 * MS);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void aFetchSentRightAfterAResponseThatFoundTheRecordUncommittedPlacesTheCommit() {
    // 0.5 ms after the consumer's previous response, whose high watermark had not reached the
    // record: the fetch asked before the record was committed, waited, and was answered at 30 ms.
    Breakdown b = readByAFetchAt14AfterAResponseAt(13.5);
    assertCommitPlaced(b, EstimationMethod.CONSUMER_FETCH_WAIT, 30);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(MS / 2);
  }

  @Test
  void aFetchSentLongAfterTheResponseThatFoundTheRecordUncommittedIsNoEvidence() {
    // The application worked 8.5 ms between that response and the next fetch: the record may have
    // been committed meanwhile, so the follower means keep H.
    assertCommitPlaced(
        readByAFetchAt14AfterAResponseAt(5.5), EstimationMethod.FOLLOWER_FETCH_METRICS, 12);
  }

  /**
   * The record D = 10, A = 12 ms, read by a waiting consumer whose fetch went out at 14 ms (after
   * the follower means' H, 12 ms) and came back at 30.5 ms; its previous response for the
   * partition, received at {@code uncommittedMs}, found the record uncommitted.
   */
  private static Breakdown readByAFetchAt14AfterAResponseAt(double uncommittedMs) {
    ConsumerSpan c = Spans.withFetchMinBytes(Spans.consumer(1, "g", 14, 30.5, 31), 1);
    return acksOneRecordReadBy(Spans.withUncommittedAt(c, uncommittedMs));
  }

  private static void assertCommitPlaced(Breakdown b, EstimationMethod method, double commitMs) {
    assertThat(b.method(Segment.COMMIT)).isEqualTo(method);
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(commitMs));
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void aGroupThatReadsTheRecordLaterSharesTheCommitAWaitingGroupPlaced() {
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c = acksOneCorrelator(out);
    c.offerProducer(Spans.producer(1, 0, 10, 12));
    // Group "live" waited for the record and got it at 30.5 ms; group "batch" asked at 200 ms.
    c.offerConsumer(Spans.withFetchMinBytes(Spans.consumer(1, "live", 5, 30.5, 31), 1));
    c.offerConsumer(Spans.withFetchMinBytes(Spans.consumer(1, "batch", 200, 201, 202), 1));

    Breakdown live = out.get(0).breakdown();
    Breakdown batch = out.get(1).breakdown();
    assertThat(out.get(1).group()).isEqualTo("batch");
    assertThat(batch.method(Segment.COMMIT)).isEqualTo(EstimationMethod.CONSUMER_FETCH_WAIT);
    assertThat(batch.nanos(Segment.COMMIT)).isEqualTo(live.nanos(Segment.COMMIT));
    // The rest of the later group's wait is its own lag.
    assertThat(batch.nanos(Segment.CATCH_UP)).isEqualTo(171 * MS);
    assertThat(batch.sumOfSegmentsNanos()).isEqualTo(batch.e2eNanos());
  }

  @Test
  void aConsumerWaitingForMoreThanOneByteDoesNotPlaceTheCommit() {
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c = acksOneCorrelator(out);
    // fetch.min.bytes=64 KiB: the leader answered when enough data had come or the wait ran out,
    // which says nothing about when this record was committed.
    c.offerProducer(Spans.producer(1, 0, 10, 12));
    c.offerConsumer(Spans.withFetchMinBytes(Spans.consumer(1, "g", 5, 305, 306), 65_536));
    // The consumer's agent could not read the setting: the same.
    c.offerProducer(Spans.producer(2, 0, 10, 12));
    c.offerConsumer(Spans.consumer(2, "g", 5, 30.5, 31));

    for (JoinedBreakdown joined : out) {
      Breakdown b = joined.breakdown();
      assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
      assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(12));
    }
  }

  @Test
  void aResponseAClassicConsumerReadLateDoesNotPlaceTheCommit() {
    // The fetch waited at the leader from 5 ms, but the application was busy outside poll() when
    // the response came, and read it at 80.5 ms: that wait is the application's, not commit.
    Breakdown b =
        acksOneRecordReadBy(Spans.withFetchSettings(Spans.consumer(1, "g", 5, 80.5, 81), 1, false));
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(12));
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(Math.round(68.5 * MS));
  }

  @Test
  void withAcksAllTheProduceResponseStillPlacesTheCommit() {
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c = acksOneCorrelator(out);
    c.offerProducer(Spans.acksAll(Spans.producer(1, 0, 10, 12)));
    c.offerConsumer(Spans.withFetchMinBytes(Spans.consumer(1, "g", 5, 30.5, 31), 1));

    Breakdown b = out.get(0).breakdown();
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isLessThanOrEqualTo(Spans.ms(12));
  }

  @Test
  void theCommitIsNeverAfterTheLeaderBeganAnsweringTheFetchThatCarriedTheRecord() {
    List<JoinedBreakdown> out = new ArrayList<>();
    Map<Request, RequestTimings> leader1 = new EnumMap<>(Request.class);
    leader1.put(Request.PRODUCE, timings(0.25, 0.25, 0, 0.25, 0.25));
    // Follower means that place H 40 ms after the append (a stalled follower in the interval).
    leader1.put(Request.FETCH_FOLLOWER, timings(20, 20, 400, 0, 0));
    leader1.put(Request.FETCH_CONSUMER, timings(0.1, 0.1, 0, 1, 1));
    Correlator c =
        new Correlator(
            new Correlator.Settings(10_000 * MS, 100, 60_000 * MS, 100),
            () -> 0L,
            BrokerInstants.requestMetrics((node, request, at) -> leader1.get(request), 60_000 * MS),
            out::add);
    // A consumer (its fetch.min.bytes unknown) asked at 20 ms and got the record at 25 ms: the
    // leader began answering at 23 ms, so the record was committed by then, not at 51 ms.
    c.offerProducer(Spans.producer(1, 0, 10, 12));
    c.offerConsumer(Spans.consumer(1, "g", 20, 25, 26));

    Breakdown b = out.get(0).breakdown();
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(Spans.ms(23));
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(2 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  private static Correlator correlatorWithProduceTimings(
      RequestTimings produce, List<JoinedBreakdown> out) {
    return new Correlator(
        new Correlator.Settings(10_000 * MS, 100, 60_000 * MS, 100),
        () -> 0L,
        BrokerInstants.requestMetrics(
            (node, request, at) -> request == Request.PRODUCE ? produce : null, 60_000 * MS),
        out::add);
  }
}
