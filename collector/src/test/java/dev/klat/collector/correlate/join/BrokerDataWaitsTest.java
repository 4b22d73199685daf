package dev.klat.collector.correlate.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BrokerDataWaitsTest {
  private final BrokerDataWaits<String> waits = new BrokerDataWaits<>(2);
  private final Set<String> stillAwaited = new HashSet<>();
  private final List<String> computed = new ArrayList<>();

  @Test
  void aRecordIsHeldOnlyWhenItsDataIsAwaitedAndThereIsRoom() {
    assertThat(waits.hold("not awaited", false, 0)).isFalse();
    assertThat(waits.hold("a", true, 0)).isTrue();
    assertThat(waits.hold("b", true, 0)).isTrue();
    assertThat(waits.hold("full", true, 0)).as("at capacity: computed at once").isFalse();
    assertThat(waits.waits()).isEqualTo(2);
  }

  @Test
  void recordsAreReleasedInJoinOrderOnceTheirDataArrived() {
    waits.hold("a", true, 0);
    waits.hold("b", true, 0);
    stillAwaited.add("a");
    waits.release(10, (r, now) -> stillAwaited.contains(r), computed::add);
    assertThat(computed).containsExactly("b");
    stillAwaited.clear();
    waits.release(20, (r, now) -> stillAwaited.contains(r), computed::add);
    assertThat(computed).containsExactly("b", "a");
    assertThat(waits.timedOut()).isZero();
  }

  @Test
  void aRecordWaitsNoLongerThanTheLongestWait() {
    waits.hold("a", true, 0);
    stillAwaited.add("a");
    waits.release(BrokerDataWaits.MAX_WAIT_NANOS - 1, (r, now) -> true, computed::add);
    assertThat(computed).isEmpty();
    waits.release(BrokerDataWaits.MAX_WAIT_NANOS, (r, now) -> true, computed::add);
    assertThat(computed).containsExactly("a");
    assertThat(waits.timedOut()).isEqualTo(1);
  }
}
