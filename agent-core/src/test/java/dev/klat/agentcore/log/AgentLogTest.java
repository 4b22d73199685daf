package dev.klat.agentcore.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.klat.agentcore.log.AgentLog.Level;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AgentLogTest {

  @Test
  void lineHasPrefixUtcIsoTimeAndLevel() {
    CapturedLog captured = new CapturedLog();

    captured.log.info("agent started");

    assertThat(captured.lines())
        .containsExactly("[klat-agent] 2025-01-31T12:00:00.000Z INFO agent started");
  }

  @Test
  void levelThresholdFiltersMessages() {
    CapturedLog captured = new CapturedLog(Level.WARN);

    captured.log.debug("d");
    captured.log.info("i");
    captured.log.warn("w");
    captured.log.error("e");

    assertThat(captured.lines()).hasSize(2);
    assertThat(captured.lines(Level.WARN)).hasSize(1);
    assertThat(captured.lines(Level.ERROR)).hasSize(1);
  }

  @Test
  void debugLevelPrintsEverythingAndOffPrintsNothing() {
    CapturedLog debug = new CapturedLog(Level.DEBUG);
    debug.log.debug("d");
    assertThat(debug.lines()).singleElement().asString().contains(" DEBUG d");
    assertThat(debug.log.isDebugEnabled()).isTrue();

    CapturedLog off = new CapturedLog(Level.OFF);
    off.log.error("e");
    off.log.warnOnce("k", "w");
    off.log.warnThrottled("k", "w");
    off.log.error("e", new IllegalStateException("x"));
    assertThat(off.text()).isEmpty();
  }

  @Test
  void setLevelChangesThresholdInPlace() {
    CapturedLog captured = new CapturedLog(Level.INFO);
    captured.log.debug("hidden");
    captured.log.setLevel(Level.DEBUG);
    captured.log.debug("shown");

    assertThat(captured.lines()).singleElement().asString().endsWith("DEBUG shown");
  }

  @Test
  void warnOncePrintsOnlyTheFirstTimePerKey() {
    CapturedLog captured = new CapturedLog();

    captured.log.warnOnce("headers-read-only", "first");
    captured.log.warnOnce("headers-read-only", "second");
    captured.advanceMillis(3_600_000);
    captured.log.warnOnce("headers-read-only", "third");
    captured.log.warnOnce("other", "other key");

    assertThat(captured.lines()).hasSize(2);
    assertThat(captured.lines().get(0)).endsWith("WARN first");
    assertThat(captured.lines().get(1)).endsWith("WARN other key");
  }

  @Test
  void warnThrottledSuppressesWithinSixtySecondsThenReportsSuppressedCount() {
    CapturedLog captured = new CapturedLog();

    captured.log.warnThrottled("export.failed", "export failed");
    captured.advanceMillis(1_000);
    captured.log.warnThrottled("export.failed", "export failed");
    captured.advanceMillis(58_999);
    captured.log.warnThrottled("export.failed", "export failed");
    assertThat(captured.lines()).hasSize(1);

    captured.advanceMillis(1); // 60 s after the first line
    captured.log.warnThrottled("export.failed", "export failed again");

    assertThat(captured.lines())
        .containsExactly(
            "[klat-agent] 2025-01-31T12:00:00.000Z WARN export failed",
            "[klat-agent] 2025-01-31T12:01:00.000Z WARN export failed again"
                + " (2 similar messages suppressed since 2025-01-31T12:00:00.000Z)");
  }

  @Test
  void warnThrottledKeysAreIndependent() {
    CapturedLog captured = new CapturedLog();

    captured.log.warnThrottled("a", "a1");
    captured.log.warnThrottled("b", "b1");
    captured.log.warnThrottled("a", "a2");

    assertThat(captured.lines()).hasSize(2);
  }

  @Test
  void warnThrottledWithoutSuppressionHasNoSuffix() {
    CapturedLog captured = new CapturedLog();

    captured.log.warnThrottled("k", "one");
    captured.advanceMillis(AgentLog.THROTTLE_PERIOD_MILLIS);
    captured.log.warnThrottled("k", "two");

    assertThat(captured.lines().get(1)).endsWith("WARN two");
  }

  @Test
  void warnThrottledRecoversWhenTheWallClockJumpsBack() {
    CapturedLog captured = new CapturedLog();

    captured.log.warnThrottled("k", "before");
    captured.advanceMillis(-3_600_000);
    captured.log.warnThrottled("k", "after jump");

    assertThat(captured.lines()).hasSize(2);
  }

  @Test
  void dynamicKeysAreBounded() {
    CapturedLog captured = new CapturedLog();

    for (int i = 0; i < AgentLog.MAX_KEYS + 500; i++) {
      captured.log.warnOnce("key-" + i, "m" + i);
    }

    // Past the bound, new keys share one throttle: one more line, not 500.
    assertThat(captured.lines()).hasSize(AgentLog.MAX_KEYS + 1);
  }

  @Test
  void multiLineMessagesStayOnOneLine() {
    CapturedLog captured = new CapturedLog();

    captured.log.warn("bad\nvalue\r\nhere");

    assertThat(captured.lines()).singleElement().asString().endsWith("WARN bad\\nvalue\\r\\nhere");
  }

  @Test
  void errorWithThrowableIsOneLineAtInfoAndAddsStackTraceAtDebug() {
    CapturedLog info = new CapturedLog(Level.INFO);
    info.log.error("premain failed", new IllegalStateException("boom"));
    assertThat(info.lines())
        .singleElement()
        .asString()
        .endsWith("ERROR premain failed: java.lang.IllegalStateException: boom");

    CapturedLog debug = new CapturedLog(Level.DEBUG);
    debug.log.error("premain failed", new IllegalStateException("boom"));
    assertThat(debug.lines().size()).isGreaterThan(1);
    assertThat(debug.text()).contains("\tat ");
  }

  @Test
  void neverThrowsWhenTheStreamIsClosedOrBroken() {
    OutputStream closed =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new IOException("Stream closed");
          }
        };
    PrintStream throwing =
        new PrintStream(new ByteArrayOutputStream()) {
          @Override
          public void println(String x) {
            throw new IllegalStateException("broken stream");
          }
        };
    Throwable evil =
        new RuntimeException() {
          @Override
          public String toString() {
            throw new IllegalStateException("evil toString");
          }
        };

    for (PrintStream stream : new PrintStream[] {new PrintStream(closed, true), throwing}) {
      AgentLog log = new AgentLog(Level.DEBUG, stream, () -> 0L);
      assertThatCode(
              () -> {
                log.error("e");
                log.error("e", evil);
                log.warn("w");
                log.warnOnce("k", "w");
                log.warnThrottled("k", "w");
                log.info("i");
                log.debug("d");
              })
          .doesNotThrowAnyException();
    }
    AgentLog brokenClock =
        new AgentLog(
            Level.INFO,
            new PrintStream(new ByteArrayOutputStream()),
            () -> {
              throw new IllegalStateException("clock");
            });
    assertThatCode(() -> brokenClock.warnThrottled("k", "w")).doesNotThrowAnyException();
  }

  @Test
  void nullStreamMeansStandardErrorAsItIsAtConstruction() {
    PrintStream originalErr = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      new AgentLog(null, null, null).info("to stderr");
    } finally {
      System.setErr(originalErr);
    }
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("[klat-agent] ")
        .contains("INFO to stderr");
  }

  @Test
  void globalIsOneInstanceStartingAtInfo() {
    assertThat(AgentLog.global()).isSameAs(AgentLog.global());
  }
}
