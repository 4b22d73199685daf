package dev.klat.collector.correlate.clock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClockOffsetsTest {
  private static final long WINDOW = 8_000;

  @Test
  void twoSidedBoundsGiveTheMidpointAndHalfTheWidth() {
    ClockOffsets offsets = new ClockOffsets(WINDOW, 10);
    offsets.bound("p", "c", 120, 0); // clock(c) - clock(p) <= 120
    offsets.bound("p", "c", 100, 0);
    offsets.bound("c", "p", -60, 0); // clock(p) - clock(c) <= -60, so clock(c) - clock(p) >= 60
    ClockOffset o = offsets.estimate("p", "c", 0);
    assertThat(o.offsetNanos()).isEqualTo(80);
    assertThat(o.uncertaintyNanos()).isEqualTo(20);
    assertThat(o.lowerNanos()).isEqualTo(60);
    assertThat(o.upperNanos()).isEqualTo(100);
    ClockOffset reverse = offsets.estimate("c", "p", 0);
    assertThat(reverse.offsetNanos()).isEqualTo(-80);
    assertThat(reverse.uncertaintyNanos()).isEqualTo(20);
  }

  @Test
  void aBrokerClockMovesOnlyAsFarAsItsBoundsNeed() {
    ClockOffsets offsets = new ClockOffsets(WINDOW, 10);
    offsets.brokerDomain("broker-1");
    // D <= L <= A through a slow path, L <= R from a consumer next to the broker: [-3, 50].
    offsets.bound("p", "broker-1", 50, 0);
    offsets.bound("broker-1", "p", 3, 0);
    ClockOffset o = offsets.estimate("p", "broker-1", 0);
    assertThat(o.offsetNanos()).isZero();
    assertThat(o.uncertaintyNanos()).isEqualTo(26);
    assertThat(offsets.estimate("broker-1", "p", 0).offsetNanos()).isZero();
    // Bounds that exclude zero: the nearest one.
    offsets.bound("broker-1", "p", -20, 0);
    assertThat(offsets.estimate("p", "broker-1", 0).offsetNanos()).isEqualTo(20);
    assertThat(offsets.estimate("broker-1", "p", 0).offsetNanos()).isEqualTo(-20);
    // Two agents keep the midpoint of their round-trip bounds.
    offsets.bound("p", "c", 50, 0);
    offsets.bound("c", "p", 3, 0);
    assertThat(offsets.estimate("p", "c", 0).offsetNanos()).isEqualTo(24);
  }

  @Test
  void oneSidedBoundsMoveOnlyWhenCausalityNeedsIt() {
    ClockOffsets offsets = new ClockOffsets(WINDOW, 10);
    offsets.bound("p", "c", 500, 0);
    assertThat(offsets.estimate("p", "c", 0).offsetNanos()).isZero();
    assertThat(offsets.estimate("p", "c", 0).bounded()).isFalse();
    offsets.bound("p", "c", -300, 0);
    assertThat(offsets.estimate("p", "c", 0).offsetNanos()).isEqualTo(-300);
    assertThat(offsets.estimate("c", "p", 0).offsetNanos()).isEqualTo(300);
  }

  @Test
  void oldBoundsLeaveTheWindow() {
    ClockOffsets offsets = new ClockOffsets(WINDOW, 10);
    offsets.bound("p", "c", -300, 0);
    offsets.bound("p", "c", -100, 5_000);
    assertThat(offsets.estimate("p", "c", 5_000).offsetNanos()).isEqualTo(-300);
    assertThat(offsets.estimate("p", "c", 9_000).offsetNanos()).isEqualTo(-100);
    assertThat(offsets.estimate("p", "c", 20_000).upperNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void pairsBeyondTheLimitForgetTheLeastRecentlyUsed() {
    ClockOffsets offsets = new ClockOffsets(WINDOW, 2);
    offsets.bound("a", "b", -1, 0);
    offsets.bound("a", "c", -1, 0);
    offsets.bound("a", "d", -1, 0);
    assertThat(offsets.pairCount()).isEqualTo(2);
    assertThat(offsets.estimate("a", "b", 0).offsetNanos()).isZero();
  }
}
