package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.ms;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.instants.BrokerInstant;
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.Segment;
import org.junit.jupiter.api.Test;

class ClockFlagsTest {
  private static final long MS = 1_000_000L;

  // S 0, D 1, L 3 (broker), A 5, H 4 (broker), F 6, R 8, P 9 (consumer): produce 1 ms, publish
  // 2 ms, commit 1 ms, catch-up 3 ms (F - H and P - R), fetch 2 ms.
  private static final Breakdown BREAKDOWN =
      Breakdown.compute(
          Instants.builder()
              .send(ms(0))
              .drain(ms(1))
              .append(ms(3), EstimationMethod.BROKER_PROBE)
              .ack(ms(5))
              .commit(ms(4), EstimationMethod.BROKER_PROBE)
              .fetchRequest(ms(6))
              .fetchResponse(ms(8))
              .poll(ms(9))
              .build());

  private static final BrokerInstant L =
      BrokerInstant.onBroker(ms(3), "broker-1", 0, EstimationMethod.BROKER_PROBE);
  private static final BrokerInstant H =
      BrokerInstant.onBroker(ms(4), "broker-1", 0, EstimationMethod.BROKER_PROBE);

  private static ClockOffset within(long uncertaintyNanos) {
    return new ClockOffset("p", "x", 0, uncertaintyNanos, -uncertaintyNanos, uncertaintyNanos);
  }

  @Test
  void aSegmentReadOnOneClockIsNeverFlagged() {
    // Commit is L to H, both on the broker's clock: exact whatever the broker's offset.
    ClockFlags flags = new ClockFlags(within(0), within(50 * MS), L, H);
    assertThat(flags.flagged(BREAKDOWN))
        .containsExactlyInAnyOrder(Segment.PUBLISH, Segment.CATCH_UP, Segment.FETCH);
  }

  @Test
  void aSegmentSpanningClocksIsFlaggedWhenSmallerThanTheirUncertainties() {
    // Fetch spans broker and consumer: 1.5 + 1 ms > its 2 ms; catch-up (3 ms) and publish (2 ms,
    // 1.5 ms uncertain) are not.
    ClockFlags flags = new ClockFlags(within(MS), within(3 * MS / 2), L, H);
    assertThat(flags.flagged(BREAKDOWN)).containsExactly(Segment.FETCH);
    assertThat(flags.e2eFlagged(BREAKDOWN)).isFalse();
  }

  @Test
  void anUnboundedConsumerFlagsEverySegmentThatReachesItAndTheEndToEnd() {
    ClockFlags flags = new ClockFlags(ClockOffset.zero("p", "c"), within(0), L, H);
    assertThat(flags.flagged(BREAKDOWN)).containsExactlyInAnyOrder(Segment.CATCH_UP, Segment.FETCH);
    assertThat(flags.e2eFlagged(BREAKDOWN)).isTrue();
  }

  @Test
  void theResolutionOfTheAppendWidensTheBrokersUncertainty() {
    // L known to 6 ms: 3 ms either side, more than publish and fetch (2 ms), not catch-up (3 ms).
    BrokerInstant coarse =
        BrokerInstant.onBroker(ms(3), "broker-1", 6 * MS, EstimationMethod.LOG_APPEND_TIMESTAMP);
    ClockFlags flags = new ClockFlags(within(0), within(0), coarse, H);
    assertThat(flags.flagged(BREAKDOWN)).containsExactlyInAnyOrder(Segment.PUBLISH, Segment.FETCH);
  }
}
