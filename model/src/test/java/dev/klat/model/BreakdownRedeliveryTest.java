package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Section 11 of the latency model: the redelivery part of catch-up for a share group. */
class BreakdownRedeliveryTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_700_000_000_000_000_000L;

  // S=0, D=1, L=2, H=3 ms; the counted delivery fetches at F=2003, receives at R=2004, polls 2005.
  private static Breakdown counted() {
    return Breakdown.compute(
        Instants.builder()
            .send(T0)
            .drain(T0 + MS)
            .append(T0 + 2 * MS)
            .commit(T0 + 3 * MS)
            .fetchRequest(T0 + 2003 * MS)
            .fetchResponse(T0 + 2004 * MS)
            .poll(T0 + 2005 * MS)
            .build());
  }

  @Test
  void redeliveryRunsFromTheFirstAcquisitionToTheCountedFetchInsideCatchUp() {
    Breakdown b = counted();

    long redelivery = b.redeliveryNanos(T0 + 5 * MS);

    assertThat(redelivery).isEqualTo(1998 * MS);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(2001 * MS);
    assertThat(b.nanos(Segment.CATCH_UP) - redelivery).isEqualTo(3 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void anAcquisitionBeforeHCountsFromHAndOneAfterFIsNoPart() {
    Breakdown b = counted();

    assertThat(b.redeliveryNanos(T0)).isEqualTo(2000 * MS);
    assertThat(b.redeliveryNanos(T0 + 3000 * MS)).isZero();
  }

  @Test
  void withoutCatchUpThePartIsUnknown() {
    Breakdown b =
        Breakdown.compute(
            Instants.builder()
                .send(T0)
                .method(TimePoint.SEND, EstimationMethod.OPENTELEMETRY_SPAN)
                .commit(T0 + MS, EstimationMethod.BROKER_PROBE)
                .poll(T0 + 9 * MS)
                .method(TimePoint.POLL, EstimationMethod.OPENTELEMETRY_SPAN)
                .build());

    assertThat(b.redeliveryNanos(T0 + 2 * MS)).isEqualTo(-1);
  }
}
