package dev.klat.agentcore.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ClockSyncTest {
  private static final long T = 1_800_000_000_000_000_000L;
  private static final long MS = 1_000_000L;

  private final ClockSync sync = new ClockSync();

  // The collector's clock is offsetNanos ahead of the agent's; the request takes upNanos to
  // arrive, the collector holds it holdNanos, the answer takes downNanos back.
  private void exchange(long at, long offsetNanos, long upNanos, long holdNanos, long downNanos) {
    long t0 = at;
    long t1 = at + upNanos + offsetNanos;
    long t2 = t1 + holdNanos;
    long t3 = at + upNanos + holdNanos + downNanos;
    sync.record(
        t0, Long.toString(Math.floorDiv(t1, 1000)), Long.toString(Math.floorDiv(t2, 1000)), t3);
  }

  @Test
  void aSymmetricExchangeGivesTheOffsetWithHalfTheRoundTripAsUncertainty() {
    exchange(T, 250 * MS, 2 * MS, 5 * MS, 2 * MS);

    assertThat(sync.hasSample()).isTrue();
    assertThat(sync.offsetNanos()).isCloseTo(250 * MS, within(1000L));
    // Round trip 9 ms, of which the collector held 5: 2 ms either way, plus 1 us of truncation.
    assertThat(sync.uncertaintyNanos()).isEqualTo(2 * MS + 1000);
    assertThat(sync.accepted()).isEqualTo(1);
    assertThat(sync.rejected()).isZero();
  }

  @Test
  void anAsymmetricExchangeIsOffByHalfTheAsymmetryAndStaysWithinItsUncertainty() {
    // A slow request (a large body), a quick answer: the estimate is 4.5 ms high, within +-5 ms.
    exchange(T, -250 * MS, 10 * MS, 1 * MS, 1 * MS);

    long error = sync.offsetNanos() - (-250 * MS);
    assertThat(error).isCloseTo(4_500_000L, within(1000L));
    assertThat(Math.abs(error)).isLessThanOrEqualTo(sync.uncertaintyNanos());
    assertThat(sync.uncertaintyNanos()).isEqualTo(5_500_000L + 1000);
  }

  @Test
  void theShortestRoundTripOfTheLastEightExchangesWins() {
    exchange(T, 100 * MS, 1 * MS, 0, 1 * MS); // tight, but leaves the window below
    for (int i = 1; i <= ClockSync.WINDOW; i++) {
      // 4 ms round trips, except one of 2 ms, whose estimate is a little off.
      long up = i == 5 ? MS + 300_000 : 2 * MS;
      long down = i == 5 ? MS - 300_000 : 2 * MS;
      exchange(T + i * 1000 * MS, 100 * MS, up, 3 * MS, down);
    }

    assertThat(sync.uncertaintyNanos()).isEqualTo(MS + 1000);
    assertThat(sync.offsetNanos()).isCloseTo(100 * MS + 300_000, within(1000L));
    assertThat(sync.accepted()).isEqualTo(9);
  }

  @Test
  void anAnswerWithoutTheHeadersIsNoSampleAndNoError() {
    sync.record(T, null, null, T + MS);

    assertThat(sync.hasSample()).isFalse();
    assertThat(sync.offsetNanos()).isZero();
    assertThat(sync.uncertaintyNanos()).isZero();
    assertThat(sync.accepted()).isZero();
    assertThat(sync.rejected()).isZero();
  }

  @Test
  void garbageOrContradictoryHeadersAreCountedAndIgnored() {
    long t0Micros = T / 1000;
    String ok = Long.toString(t0Micros + 100);
    sync.record(T, ok, null, T + MS); // one header only
    sync.record(T, "soon", ok, T + MS);
    sync.record(T, ok, "-5", T + MS);
    sync.record(T, ok, "1e9", T + MS);
    sync.record(T, "", ok, T + MS);
    sync.record(T, "99999999999999999999", ok, T + MS); // more than 18 digits
    sync.record(T, Long.toString(t0Micros + 200), ok, T + MS); // sent before it was received
    sync.record(T, ok, Long.toString(t0Micros + 10_000), T + MS); // held 10 ms of a 1 ms wait
    sync.record(T + MS, ok, ok, T); // answered before asked
    sync.record(T, "1", "2", T + MS); // the collector's clock at 1970: offset out of range

    assertThat(sync.hasSample()).isFalse();
    assertThat(sync.rejected()).isEqualTo(10);

    sync.record(T, " " + ok + " ", ok, T + MS);
    assertThat(sync.hasSample()).isTrue();
    assertThat(sync.rejected()).isEqualTo(10);
  }

  @Test
  void parsesOnlyPlainDecimals() {
    assertThat(ClockSync.parseMicros("1800000000000000")).isEqualTo(1_800_000_000_000_000L);
    assertThat(ClockSync.parseMicros(" 12 ")).isEqualTo(12);
    assertThat(ClockSync.parseMicros("+12")).isEqualTo(-1);
    assertThat(ClockSync.parseMicros("1 2")).isEqualTo(-1);
    assertThat(ClockSync.parseMicros(null)).isEqualTo(-1);
    assertThat(ClockSync.parseMicros("999999999999999999")).isEqualTo(-1);
  }
}
