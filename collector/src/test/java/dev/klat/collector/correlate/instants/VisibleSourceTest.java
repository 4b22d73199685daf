package dev.klat.collector.correlate.instants;

import static dev.klat.collector.correlate.join.Spans.consumer;
import static dev.klat.collector.correlate.join.Spans.ms;
import static dev.klat.collector.correlate.join.Spans.producer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.join.ProducerTransaction;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Section 9: where {@code V} of a transactional record read by a {@code read_committed} group comes
 * from, best first: the leader's probe, the producer's commit {@code C}, the bound {@code V <= R}.
 */
class VisibleSourceTest {

  private static final TermKey LEADER = new TermKey(1, 0xABCL, 3);

  private final ProbeTimelines probes = new ProbeTimelines(100, 100);
  private final List<JoinedBreakdown> out = new ArrayList<>();
  private final Correlator correlator =
      new Correlator(
          new Correlator.Settings(60_000_000_000L, 1000, 60_000_000_000L, 100),
          () -> 1_000_000_000L,
          BrokerInstants.probeFirst(
              probes, (node, request, at) -> null, Replicas.UNKNOWN, 60_000_000_000L),
          out::add);

  // Appended at 12 ms, committed at 14 ms; the consumer asked at 20 and received at 64.
  private void probed(boolean readsStable) {
    probes.stableOffsets(LEADER, "orders", 0, readsStable, readsStable ? 5 : -1);
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));
    probes.commit(LEADER, "orders", 0, 5, 5, ms(14), ms(14), 2);
  }

  private static ProducerSpan transactional(double commitMs) {
    return producer(5, 0, 10, 16)
        .withTransaction(
            new ProducerTransaction(true, commitMs < 0 ? Long.MIN_VALUE : ms(commitMs)));
  }

  private static ConsumerSpan readCommitted() {
    return consumer(5, "g", 20, 64, 65).withReadCommitted(true);
  }

  private Breakdown join(ProducerSpan p, ConsumerSpan c) {
    correlator.offerProducer(p);
    correlator.offerConsumer(c);
    assertThat(out).hasSize(1);
    return out.get(0).breakdown();
  }

  @Test
  void theProbeSaysWhenTheLastStableOffsetPassedTheRecord() {
    probed(true);
    probes.stable(LEADER, "orders", 0, 5, 6, ms(60), ms(60));

    Breakdown b = join(transactional(50), readCommitted());

    assertThat(b.visibleMethod()).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(b.transactionWaitNanos()).isEqualTo(46_000_000L); // 60 - 14
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(48_000_000L); // 60 - 12
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(4_000_000L); // 64 - 60
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(out.get(0).transactionWaitNanos()).isEqualTo(46_000_000L);
  }

  @Test
  void withoutTheProbesVTheProducersCommitStandsForIt() {
    probed(false); // an older probe: H exact, no V

    Breakdown b = join(transactional(50), readCommitted());

    assertThat(b.visibleMethod()).isEqualTo(EstimationMethod.TRANSACTION_COMMIT);
    assertThat(b.transactionWaitNanos()).isEqualTo(36_000_000L); // C = 50, H = 14
  }

  @Test
  void withoutCTheFetchResponseBoundsV() {
    probed(false);

    Breakdown b = join(transactional(-1), readCommitted());

    assertThat(b.visibleMethod()).isEqualTo(EstimationMethod.FETCH_RESPONSE_BOUND);
    assertThat(b.instants().visibleNanos()).isEqualTo(ms(64));
    assertThat(b.nanos(Segment.FETCH)).isZero();
  }

  @Test
  void aReadUncommittedGroupKeepsTodaysNumbers() {
    probed(true);
    probes.stable(LEADER, "orders", 0, 5, 6, ms(60), ms(60));

    assertNoTransactionWait(join(transactional(50), consumer(5, "g", 20, 64, 65)));
  }

  @Test
  void aRecordOutsideATransactionKeepsTodaysNumbers() {
    probed(true);
    probes.stable(LEADER, "orders", 0, 5, 6, ms(60), ms(60));

    assertNoTransactionWait(join(producer(5, 0, 10, 16), readCommitted()));
  }

  private static void assertNoTransactionWait(Breakdown b) {
    assertThat(b.instants().hasVisible()).isFalse();
    assertThat(b.transactionWaitNanos()).isZero();
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(2_000_000L);
  }

  @Test
  void aPartitionWhoseLastStableOffsetNeverLaggedHasVEqualToH() {
    probes.stableOffsets(LEADER, "orders", 0, true, -1);
    probes.append(LEADER, "orders", 0, 5, 5, ms(12), ms(12));
    probes.commit(LEADER, "orders", 0, 5, 5, ms(14), ms(14), 2);

    Breakdown b = join(transactional(50), readCommitted());

    assertThat(b.visibleMethod()).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(b.transactionWaitNanos()).isZero();
  }
}
