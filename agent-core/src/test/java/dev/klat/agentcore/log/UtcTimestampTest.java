package dev.klat.agentcore.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UtcTimestampTest {

  /** The formatter AgentLog used before: the reference the hand-written one must equal. */
  private static final DateTimeFormatter REFERENCE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private static final long YEAR_0 = -62_167_219_200_000L;
  private static final long YEAR_10000 = 253_402_300_800_000L;

  @Test
  void formatsLikeTheJavaTimePatternAtCalendarEdges() {
    String[] instants = {
      "1970-01-01T00:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "2000-02-29T12:34:56.789Z",
      "2000-03-01T00:00:00.000Z",
      "2100-02-28T23:59:59.999Z",
      "2100-03-01T00:00:00.001Z",
      "2024-12-31T23:59:59.999Z",
      "2025-01-31T12:00:00.000Z",
      "0000-01-01T00:00:00.000Z",
      "9999-12-31T23:59:59.999Z",
    };
    for (String iso : instants) {
      long millis = Instant.parse(iso).toEpochMilli();
      assertThat(UtcTimestamp.format(millis)).isEqualTo(iso).isEqualTo(reference(millis));
    }
  }

  @Test
  void formatsLikeTheJavaTimePatternForEveryDayOfFourCenturiesAndRandomInstants() {
    long day = 86_400_000L;
    for (long millis = Instant.parse("1900-01-01T00:00:00Z").toEpochMilli();
        millis < Instant.parse("2300-01-01T00:00:00Z").toEpochMilli();
        millis += day + 1_001) {
      assertThat(UtcTimestamp.format(millis)).isEqualTo(reference(millis));
    }
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 100_000; i++) {
      long millis = random.nextLong(YEAR_0, YEAR_10000);
      assertThat(UtcTimestamp.format(millis)).isEqualTo(reference(millis));
    }
  }

  private static String reference(long millis) {
    return REFERENCE.format(Instant.ofEpochMilli(millis));
  }
}
