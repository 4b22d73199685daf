package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agentcore.clock.FixedTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {

  private final FixedTime time = new FixedTime(0);
  private final List<String> lines = new ArrayList<>();
  private final RateLimitedLog log = new RateLimitedLog(lines::add, time);

  @Test
  void passesAtMostOneWarningPerKindPerMinute() {
    time.nanoTime = -5; // nanoTime may be negative; the first warning must still pass
    assertThat(log.warn(RateLimitedLog.Kind.SPANS_DROPPED, "a")).isTrue();
    assertThat(log.warn(RateLimitedLog.Kind.SPANS_DROPPED, "b")).isFalse();
    assertThat(log.warn(RateLimitedLog.Kind.EXPORT_REJECTED, "c")).isTrue();
    time.nanoTime += TimeUnit.SECONDS.toNanos(59);
    assertThat(log.warn(RateLimitedLog.Kind.SPANS_DROPPED, "d")).isFalse();
    time.nanoTime += TimeUnit.SECONDS.toNanos(1);
    assertThat(log.warn(RateLimitedLog.Kind.SPANS_DROPPED, "e")).isTrue();

    assertThat(lines)
        .containsExactly(
            "klat export: a", "klat export: c", "klat export: e (2 similar warnings suppressed)");
  }

  @Test
  void aThrowingLogIsIgnored() {
    RateLimitedLog broken =
        new RateLimitedLog(
            message -> {
              throw new IllegalStateException("broken");
            },
            time);
    assertThat(broken.warn(RateLimitedLog.Kind.INTERNAL_ERROR, "x")).isTrue();
  }
}
