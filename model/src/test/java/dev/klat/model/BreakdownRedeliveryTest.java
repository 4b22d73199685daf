package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Section 11 of the latency model: the redelivery part of catch-up for a share group. */
class BreakdownRedeliveryTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_700_000_000_000_000_000L;

  // S=0, D=1, L=2, H=3 ms; the counted delivery fetches at F, receives at F + 1, polls at F + 2.
  private static Instants counted(long fetchMs) {
    return Instants.builder()
        .send(T0)
        .drain(T0 + MS)
        .append(T0 + 2 * MS)
        .commit(T0 + 3 * MS)
        .fetchRequest(T0 + fetchMs * MS)
        .fetchResponse(T0 + (fetchMs + 1) * MS)
        .poll(T0 + (fetchMs + 2) * MS)
        .build();
  }

  @Test
  void redeliveryRunsFromTheFirstAcquisitionToTheCountedFetchInsideCatchUp() {
    Breakdown b = Breakdown.computeRedelivered(counted(2003), T0 + 5 * MS);

    assertThat(b.redeliveryNanos()).isEqualTo(1998 * MS);
    // (F - H) + (P - R): as section 3 when F(n) is after R(1).
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(2001 * MS);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(b.nanos(Segment.COMMIT))
        .isEqualTo(Breakdown.compute(counted(2003)).nanos(Segment.COMMIT));
  }

  @Test
  void aFetchAlreadyWaitingWhenTheRecordWasFirstAcquiredCountsFetchFromTheAcquisition() {
    // Another consumer's long poll asked at 4 ms; the first delivery acquired the record at 10
    // ms, and the counted one was answered at 2005 ms.
    Instants i =
        Instants.builder()
            .send(T0)
            .drain(T0 + MS)
            .append(T0 + 2 * MS)
            .commit(T0 + 3 * MS)
            .fetchRequest(T0 + 4 * MS)
            .fetchResponse(T0 + 2005 * MS)
            .poll(T0 + 2006 * MS)
            .build();

    Breakdown b = Breakdown.computeRedelivered(i, T0 + 10 * MS);

    assertThat(b.redeliveryNanos()).isZero();
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(7 * MS + MS);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(1995 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
  }

  @Test
  void anAcquisitionBeforeHCountsFromHAndOneAfterRIsFittedToR() {
    assertThat(Breakdown.computeRedelivered(counted(2003), T0).redeliveryNanos())
        .isEqualTo(2000 * MS);
    Breakdown late = Breakdown.computeRedelivered(counted(2003), T0 + 3000 * MS);
    assertThat(late.redeliveryNanos()).isZero();
    assertThat(late.nanos(Segment.FETCH)).isZero();
    assertThat(late.sumOfSegmentsNanos()).isEqualTo(late.e2eNanos());
  }

  @Test
  void withoutCatchUpOrOutsideShareGroupsThePartIsUnknown() {
    Breakdown b =
        Breakdown.computeRedelivered(
            Instants.builder()
                .send(T0)
                .method(TimePoint.SEND, EstimationMethod.OPENTELEMETRY_SPAN)
                .commit(T0 + MS, EstimationMethod.BROKER_PROBE)
                .poll(T0 + 9 * MS)
                .method(TimePoint.POLL, EstimationMethod.OPENTELEMETRY_SPAN)
                .build(),
            T0 + 2 * MS);

    assertThat(b.redeliveryNanos()).isEqualTo(-1);
    assertThat(Breakdown.compute(counted(2003)).redeliveryNanos()).isEqualTo(-1);
  }
}
