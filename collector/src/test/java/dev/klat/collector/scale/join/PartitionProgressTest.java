package dev.klat.collector.scale.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.join.JoinedBreakdown;
import org.junit.jupiter.api.Test;

class PartitionProgressTest {
  private static final long WINDOW_NANOS = 60_000_000_000L;
  private static final long SECOND = 1_000_000_000L;

  @Test
  void commitsTheFirstOffsetReadWithinTheJoinWindow() {
    PartitionProgress p = new PartitionProgress(-1);
    p.read(100, 0);
    p.read(101, SECOND / 100); // same mark: under 100 ms later
    p.read(150, 30 * SECOND);
    p.read(200, 61 * SECOND);

    assertThat(p.nextOffset()).isEqualTo(201);
    // At 61 s the reads of 0 s are older than the window; those of 30 s are not.
    assertThat(p.commitOffset(61 * SECOND, WINDOW_NANOS, 201)).isEqualTo(150);
    // Nothing read within the window: the next offset.
    assertThat(p.commitOffset(200 * SECOND, WINDOW_NANOS, 201)).isEqualTo(201);
  }

  @Test
  void neverCommitsPastTheJoinedBelowMark() {
    PartitionProgress p = new PartitionProgress(-1);
    p.read(100, 0);
    assertThat(p.commitOffset(SECOND, WINDOW_NANOS, 90)).isEqualTo(90);
  }

  @Test
  void releasesOnlyTheBreakdownsBelowTheMark() {
    PartitionProgress p = new PartitionProgress(-1);
    JoinedBreakdown a = null;
    p.hold(a, 5);
    p.hold(a, 9);
    p.hold(a, 12);

    assertThat(p.release(10)).hasSize(2);
    assertThat(p.held()).isEqualTo(1);
    assertThat(p.release(13)).hasSize(1);
    assertThat(p.held()).isZero();
  }

  @Test
  void replayMarkerRoundTripsAndIgnoresForeignMetadata() {
    assertThat(ReplayMarker.parse(ReplayMarker.format(12345))).isEqualTo(12345);
    assertThat(ReplayMarker.parse("")).isEqualTo(-1);
    assertThat(ReplayMarker.parse(null)).isEqualTo(-1);
    assertThat(ReplayMarker.parse("klat.joined-below=x")).isEqualTo(-1);
  }

  @Test
  void sourcePacksPartitionAndOffset() {
    long s = SpanSource.of(4095, (1L << 47) + 3);
    assertThat(SpanSource.partition(s)).isEqualTo(4095);
    assertThat(SpanSource.offset(s)).isEqualTo((1L << 47) + 3);
  }
}
