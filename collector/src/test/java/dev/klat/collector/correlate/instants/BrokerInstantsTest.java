package dev.klat.collector.correlate.instants;

import static dev.klat.collector.correlate.join.Spans.ms;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.Spans;
import dev.klat.model.EstimationMethod;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class BrokerInstantsTest {
  private static final long MS = 1_000_000L;

  /** A probe that knows L, H, both or neither, on broker 1's clock. */
  private record Probe(long appendNanos, long commitNanos) implements BrokerInstantSource {
    @Override
    public BrokerInstant append(BrokerLookup record, Supplier<BrokerInstant> worse) {
      return appendNanos < 0 ? worse.get() : exact(appendNanos);
    }

    @Override
    public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
      return commitNanos < 0 ? worse.get() : exact(commitNanos);
    }

    private static BrokerInstant exact(long nanos) {
      return BrokerInstant.onBroker(nanos, "broker-1", 0, EstimationMethod.BROKER_PROBE);
    }
  }

  private static BrokerInstant[] ask(BrokerInstants chain, ProducerSpan p, ConsumerSpan c) {
    BrokerLookup record = Sources.record(p, c);
    BrokerInstant append = chain.append(record);
    record.append(append);
    return new BrokerInstant[] {append, chain.commit(record)};
  }

  @Test
  void withoutBrokerDataLIsUnknownAndTheBoundsPlaceH() {
    BrokerInstant[] acksOne =
        ask(
            BrokerInstants.logAppendTime(),
            Spans.producer(1, 0, 2, 10),
            Spans.consumer(1, "g", 5, 12, 15));
    assertThat(acksOne[0]).isNull();
    assertThat(acksOne[1].method()).isEqualTo(EstimationMethod.FETCH_RESPONSE_BOUND);
    BrokerInstant[] acksAll =
        ask(
            BrokerInstants.logAppendTime(),
            Spans.acksAll(Spans.producer(1, 0, 2, 10)),
            Spans.consumer(1, "g", 5, 12, 15));
    assertThat(acksAll[1].method()).isEqualTo(EstimationMethod.ACK_BOUND);
  }

  @Test
  void aBetterSourceWinsPerInstant() {
    long lMs = Spans.T0 / 1_000_000 + 4;
    ProducerSpan p = Spans.producer(Spans.key(1), Spans.PRODUCER_HOST, 0, 2, 10, lMs);
    ConsumerSpan c = Spans.consumer(1, "g", 5, 12, 15);
    List<BrokerInstantSource> timestamp = List.of(new LogAppendTimeSource());

    BrokerInstant[] both = ask(chain(new Probe(ms(3), ms(6)), timestamp), p, c);
    assertThat(both[0].method()).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(both[1].nanos()).isEqualTo(ms(6));

    // The probe knows H only: L from the timestamp.
    BrokerInstant[] commitOnly = ask(chain(new Probe(-1, ms(6)), timestamp), p, c);
    assertThat(commitOnly[0].method()).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(commitOnly[1].method()).isEqualTo(EstimationMethod.BROKER_PROBE);

    // The probe has no data for this offset: the next sources apply.
    BrokerInstant[] none = ask(chain(new Probe(-1, -1), timestamp), p, c);
    assertThat(none[0].method()).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(none[1].method()).isEqualTo(EstimationMethod.FETCH_RESPONSE_BOUND);
  }

  @Test
  void anEstimatedCommitIsPlacedFromTheBetterAppend() {
    // acks=1; the follower means put H 1 ms after L.
    RequestTimings produce = new RequestTimings(10, MS / 4, MS / 4, 0, 0, MS / 4, MS / 4, MS, 0, 1);
    RequestTimings follower =
        new RequestTimings(10, MS / 4, MS / 4, 400 * MS, 0, MS / 4, MS / 4, 401 * MS, 0, 1);
    BrokerTimings timings = (node, request, at) -> request == Request.PRODUCE ? produce : follower;
    BrokerInstants chain =
        chain(
            new Probe(ms(7), -1),
            BrokerInstants.standardSources(timings, Replicas.UNKNOWN, 60_000 * MS));
    BrokerInstant[] found =
        ask(chain, Spans.producer(1, 0, 10, 12), Spans.consumer(1, "g", 200, 201, 202));
    assertThat(found[0].method()).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(found[1].method()).isEqualTo(EstimationMethod.FOLLOWER_FETCH_METRICS);
    assertThat(found[1].clock()).isEqualTo(BrokerInstant.Clock.BROKER);
    assertThat(found[1].nanos()).isEqualTo(ms(8));
  }

  private static BrokerInstants chain(BrokerInstantSource first, List<BrokerInstantSource> rest) {
    List<BrokerInstantSource> all = new java.util.ArrayList<>();
    all.add(first);
    all.addAll(rest);
    return BrokerInstants.of(all);
  }
}
