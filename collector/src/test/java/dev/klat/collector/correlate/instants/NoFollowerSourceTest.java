package dev.klat.collector.correlate.instants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NoFollowerSourceTest {
  private static final long MS = 1_000_000L;
  private static final Replicas SINGLE = (topic, partition) -> topic.equals("orders") ? 1 : 3;

  @Test
  void withoutAFollowerTheCommitIsTheAppend() {
    BrokerLookup record =
        Sources.record(Spans.producer(1, 0, 2, 10), Spans.consumer(1, "g", 5, 12, 15));
    BrokerInstant l =
        BrokerInstant.onBroker(Spans.ms(4), "broker-1", MS, EstimationMethod.LOG_APPEND_TIMESTAMP);
    record.append(l);
    BrokerInstant worse = BrokerInstant.onConsumer(0, null, EstimationMethod.FETCH_RESPONSE_BOUND);
    assertThat(new NoFollowerSource(SINGLE).commit(record, () -> worse)).isSameAs(l);
    assertThat(new NoFollowerSource(Replicas.UNKNOWN).commit(record, () -> worse)).isSameAs(worse);
  }

  @Test
  void withFollowersOrWithoutAnAppendTheWorseSourcesAnswer() {
    BrokerInstant worse = BrokerInstant.onConsumer(0, null, EstimationMethod.FETCH_RESPONSE_BOUND);
    NoFollowerSource source = new NoFollowerSource(SINGLE);
    assertThat(
            source.commit(
                Sources.record(Spans.producer(1, 0, 2, 10), Spans.consumer(1, "g", 5, 12, 15)),
                () -> worse))
        .isSameAs(worse);
    RecordKey replicated = new RecordKey("payments", 0, 1);
    BrokerLookup record =
        Sources.record(
            Spans.producer(replicated, Spans.PRODUCER_HOST, 0, 2, 10, -1),
            Spans.consumer(replicated, "g", Spans.CONSUMER_HOST, 5, 12, 15));
    record.append(
        BrokerInstant.onProducer(
            Spans.ms(4), "broker-1", EstimationMethod.PRODUCE_REQUEST_METRICS));
    assertThat(source.commit(record, () -> worse)).isSameAs(worse);
  }

  @Test
  void aSingleReplicaAcksOneTopicPutsNoneOfTheConsumersWaitIntoCommit() {
    // The case seen on a single broker: Produce mean 1.6 ms, no FetchFollower metrics at all, and
    // a consumer that was behind received the record 1.5 s after its ack.
    RequestTimings produce =
        new RequestTimings(100, 400_000, 400_000, 0, 0, 400_000, 400_000, 1_600_000, 0, 1);
    BrokerTimings timings = (node, request, at) -> request == Request.PRODUCE ? produce : null;
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c =
        new Correlator(
            new Correlator.Settings(10_000 * MS, 100, 60_000 * MS, 100),
            () -> 0L,
            BrokerInstants.requestMetrics(timings, SINGLE, 60_000 * MS),
            out::add);
    c.offerProducer(Spans.producer(1, 0, 10, 12));
    c.offerConsumer(Spans.consumer(1, "g", 1_500, 1_512, 1_513));

    Breakdown b = out.get(0).breakdown();
    assertThat(b.nanos(Segment.COMMIT)).isZero();
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.PRODUCE_REQUEST_METRICS);
    assertThat(b.nanos(Segment.CATCH_UP)).isGreaterThan(1_400 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }
}
