package dev.klat.collector.correlate.instants;

import static dev.klat.collector.correlate.join.Spans.ms;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.EstimationMethod;
import org.junit.jupiter.api.Test;

class ConsumerFetchWaitTest {
  private static final long MS = 1_000_000L;

  // The leader takes 0.5 ms from completing a consumer fetch to having sent it.
  private final ConsumerFetchWait source =
      new ConsumerFetchWait(
          (node, request, at) ->
              node == 1 && request == Request.FETCH_CONSUMER
                  ? new RequestTimings(10, 0, 0, 0, 0, MS / 4, MS / 4, MS / 2, 0, 1)
                  : null);

  // The follower means put H at 12 ms.
  private final BrokerInstant estimate =
      BrokerInstant.onProducer(ms(12), "broker-1", EstimationMethod.FOLLOWER_FETCH_METRICS);

  @Test
  void aFetchWaitingForTheRecordPlacesTheCommitWhereTheLeaderAnsweredIt() {
    // Asked at 5 ms, before the estimate of H; answered at 30.5 ms.
    BrokerLookup record =
        Sources.record(
            Spans.producer(1, 0, 10, 12),
            Spans.withFetchMinBytes(Spans.consumer(1, "g", 5, 30.5, 31), 1));
    BrokerInstant h = source.commit(record, () -> estimate);
    assertThat(h.nanos()).isEqualTo(ms(30));
    assertThat(h.clock()).isEqualTo(BrokerInstant.Clock.CONSUMER);
    assertThat(h.method()).isEqualTo(EstimationMethod.CONSUMER_FETCH_WAIT);
    assertThat(record.waitedCommitNanos()).isEqualTo(ms(30));
  }

  @Test
  void aGroupReadingLaterSharesTheCommitAWaitingGroupPlaced() {
    ConsumerSpan behind = Spans.withFetchMinBytes(Spans.consumer(1, "batch", 200, 201, 202), 1);
    BrokerLookup record = new BrokerLookup(Spans.producer(1, 0, 10, 12), behind, ms(30));
    record.offsets(0, host -> 0);
    BrokerInstant h = source.commit(record, () -> estimate);
    assertThat(h.nanos()).isEqualTo(ms(30));
    assertThat(h.method()).isEqualTo(EstimationMethod.CONSUMER_FETCH_WAIT);
  }

  @Test
  void theCommitIsNeverAfterTheLeaderBeganAnsweringAndKeepsItsMethod() {
    // fetch.min.bytes unknown: no evidence of waiting; the estimate says 40 ms, the answer 24.5.
    BrokerLookup record =
        Sources.record(Spans.producer(1, 0, 10, 12), Spans.consumer(1, "g", 20, 25, 26));
    BrokerInstant late =
        BrokerInstant.onProducer(ms(40), "broker-1", EstimationMethod.FOLLOWER_FETCH_METRICS);
    BrokerInstant h = source.commit(record, () -> late);
    assertThat(h.nanos()).isEqualTo(ms(24.5));
    assertThat(h.method()).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
    assertThat(source.commit(record, () -> estimate)).isSameAs(estimate);
  }

  @Test
  void withAcksAllOrWithoutTheLeadersFetchMetricsTheWorseSourcesAnswer() {
    ConsumerSpan waiting = Spans.withFetchMinBytes(Spans.consumer(1, "g", 5, 30.5, 31), 1);
    BrokerInstant ack = BrokerInstant.onProducer(ms(12), null, EstimationMethod.ACK_BOUND);
    assertThat(
            source.commit(
                Sources.record(Spans.acksAll(Spans.producer(1, 0, 10, 12)), waiting), () -> ack))
        .isSameAs(ack);
    ConsumerFetchWait blind = new ConsumerFetchWait(BrokerTimings.NONE);
    assertThat(blind.commit(Sources.record(Spans.producer(1, 0, 10, 12), waiting), () -> estimate))
        .isSameAs(estimate);
  }
}
