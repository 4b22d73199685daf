package dev.klat.collector.correlate.instants;

import static dev.klat.collector.correlate.join.Spans.consumer;
import static dev.klat.collector.correlate.join.Spans.ms;
import static dev.klat.collector.correlate.join.Spans.producer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinLimits;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ProbeSourceTest {

  // The leader of every span in Spans is broker 1.
  private static final TermKey LEADER = new TermKey(1, 0xABCL, 3);

  private final ProbeTimelines probes = new ProbeTimelines(100, 100);
  private final List<JoinedBreakdown> out = new ArrayList<>();
  private long nowNanos = 1_000_000_000L;
  private final Correlator correlator =
      new Correlator(
          new Correlator.Settings(60_000_000_000L, 1000, 60_000_000_000L, 100),
          () -> nowNanos,
          BrokerInstants.of(List.of(new ProbeSource(probes), new LogAppendTimeSource())),
          out::add);

  @Test
  void theProbesAppendAndCommitAreExactAndSplitPublishFromCommit() {
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));
    probes.commit(LEADER, "orders", 0, 5, 5, ms(30), ms(30), 2);

    correlator.offerProducer(producer(5, 0, 10, 32));
    correlator.offerConsumer(consumer(5, "g", 20, 34, 35));

    assertThat(out).hasSize(1);
    var breakdown = out.get(0).breakdown();
    assertThat(breakdown.nanos(Segment.PUBLISH)).isEqualTo(2_000_000L);
    assertThat(breakdown.nanos(Segment.COMMIT)).isEqualTo(18_000_000L);
    assertThat(breakdown.quality(Segment.PUBLISH)).isEqualTo(Quality.EXACT);
    assertThat(breakdown.quality(Segment.COMMIT)).isEqualTo(Quality.EXACT);
    assertThat(breakdown.method(Segment.COMMIT)).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(out.get(0).commitFollowerId())
        .as("the follower whose fetch committed it")
        .isEqualTo(2);
  }

  @Test
  void theProduceRequestTimesOfTheProbesAppendReachTheBreakdown() {
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12), 700_000, 300_000);
    probes.commit(LEADER, "orders", 0, 5, 5, ms(30), ms(30), 2);

    correlator.offerProducer(producer(5, 0, 10, 32));
    correlator.offerConsumer(consumer(5, "g", 20, 34, 35));

    assertThat(out.get(0).requestQueueNanos()).isEqualTo(700_000);
    assertThat(out.get(0).requestLocalNanos()).isEqualTo(300_000);
  }

  @Test
  void aMeasuredCommitIsNotReplacedByAWaitingConsumersEstimate() {
    // acks=1, a consumer waiting at the leader with fetch.min.bytes=1: without the probe, H would
    // be taken where the leader began answering that fetch (consumer-fetch-wait).
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));
    probes.commit(LEADER, "orders", 0, 5, 5, ms(25), ms(25), -1);
    Correlator withFetchTimings =
        new Correlator(
            new Correlator.Settings(60_000_000_000L, 1000, 60_000_000_000L, 100),
            () -> nowNanos,
            BrokerInstants.probeFirst(
                probes,
                // The leader takes 1 ms from completing a consumer fetch to having sent it.
                (node, request, at) ->
                    request == Request.FETCH_CONSUMER
                        ? new RequestTimings(10, 0, 0, 0, 0, 0, 1_000_000L, 1_000_000L, 0, 1)
                        : null,
                Replicas.UNKNOWN,
                60_000_000_000L),
            out::add);

    withFetchTimings.offerProducer(producer(5, 0, 10, 14));
    withFetchTimings.offerConsumer(Spans.withFetchMinBytes(consumer(5, "g", 8, 34, 35), 1));

    assertThat(out.get(0).breakdown().method(Segment.COMMIT))
        .isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(out.get(0).breakdown().nanos(Segment.COMMIT)).isEqualTo(13_000_000L);
  }

  @Test
  void withoutTheProbesCommitTheWorseSourcesPlaceItFromTheProbesAppend() {
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));
    BrokerInstantSource threeMsAfterTheAppend =
        new BrokerInstantSource() {
          @Override
          public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
            return record.append().shifted(3_000_000L, EstimationMethod.FOLLOWER_FETCH_METRICS);
          }
        };

    Sources.Found found =
        Sources.lookup(
            producer(5, 0, 10, 32),
            consumer(5, "g", 20, 34, 35),
            new ProbeSource(probes),
            threeMsAfterTheAppend);

    assertThat(found.appendMethod()).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(found.commitNanos()).isEqualTo(found.appendNanos() + 3_000_000L);
    assertThat(found.commitMethod()).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
  }

  @Test
  void anOffsetTheProbeDidNotSeeFallsBackAndSaysSo() {
    probes.append(LEADER, "orders", 0, 6, 6, ms(12), ms(12));

    correlator.offerProducer(producer(5, 0, 10, 32));
    correlator.offerConsumer(consumer(5, "g", 20, 34, 35));

    assertThat(out).hasSize(1);
    assertThat(out.get(0).breakdown().quality(Segment.PUBLISH)).isEqualTo(Quality.NONE);
    assertThat(out.get(0).breakdown().method(Segment.CATCH_UP))
        .isNotEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(out.get(0).requestQueueNanos())
        .as("not the probe's L: not its request")
        .isEqualTo(-1);
    assertThat(out.get(0).requestLocalNanos()).isEqualTo(-1);
  }

  @Test
  void aRecordWaitsForALiveProbeThatHasNotReportedItYet() {
    probes.covered(1, ms(20), nowNanos);
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));

    correlator.offerProducer(producer(5, 0, 10, 32));
    correlator.offerConsumer(consumer(5, "g", 20, 34, 35));
    assertThat(out)
        .as("waits: the probe reported up to 20 ms, the record was read at 34")
        .isEmpty();

    probes.commit(LEADER, "orders", 0, 5, 5, ms(30), ms(30), -1);
    probes.covered(1, ms(40), nowNanos);
    correlator.brokerDataArrived();

    assertThat(out).hasSize(1);
    assertThat(out.get(0).breakdown().method(Segment.COMMIT))
        .isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(correlator.stats().brokerDataWaits()).isEqualTo(1);
    assertThat(correlator.stats().brokerDataWaitsTimedOut()).isZero();
  }

  @Test
  void aRecordWaitsNoLongerThanASecond() {
    probes.covered(1, ms(20), nowNanos);
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));
    correlator.offerProducer(producer(5, 0, 10, 32));
    correlator.offerConsumer(consumer(5, "g", 20, 34, 35));

    nowNanos += JoinLimits.MAX_BROKER_DATA_WAIT_NANOS;
    correlator.expire();

    assertThat(out).hasSize(1);
    assertThat(out.get(0).breakdown().quality(Segment.PUBLISH)).isEqualTo(Quality.EXACT);
    assertThat(out.get(0).breakdown().method(Segment.COMMIT))
        .isNotEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(correlator.stats().brokerDataWaitsTimedOut()).isEqualTo(1);
  }

  @Test
  void aProbeSilentForFiveSecondsIsNotWaitedFor() {
    probes.covered(1, ms(20), nowNanos);
    nowNanos += ProbeTimelines.PROBE_ALIVE_NANOS + 1;

    correlator.offerProducer(producer(5, 0, 10, 32));
    correlator.offerConsumer(consumer(5, "g", 20, 34, 35));

    assertThat(out).hasSize(1);
  }

  @Test
  void withTheLeaderAloneInTheIsrCommitIsZeroNotNegative() {
    // The append advanced the high watermark inside the call, before the append hook's clock read.
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));
    probes.commit(LEADER, "orders", 0, 0, 5, ms(11.99), ms(11.99), -1);

    correlator.offerProducer(producer(5, 0, 10, 32));
    correlator.offerConsumer(consumer(5, "g", 20, 34, 35));

    assertThat(out.get(0).breakdown().nanos(Segment.COMMIT)).isZero();
    assertThat(out.get(0).breakdown().clampCount()).isZero();
  }
}
