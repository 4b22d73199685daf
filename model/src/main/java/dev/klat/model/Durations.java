package dev.klat.model;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one way klat's settings write a duration, the agent's and the collector's alike: a whole
 * number with a unit, {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, or a plain whole number
 * of milliseconds.
 */
public final class Durations {
  private static final Pattern DURATION =
      Pattern.compile("\\s*(\\d{1,18})\\s*(ms|s|m|h)?\\s*", Pattern.CASE_INSENSITIVE);

  /** What a duration looks like, for error messages. */
  public static final String EXPECTED =
      "a duration such as 500ms, 10s, 5m, 1h or a whole number of milliseconds";

  private Durations() {}

  /**
   * Parses a duration into milliseconds.
   *
   * @throws IllegalArgumentException if {@code value} is not a duration, or too large
   */
  public static long parseMillis(String value) {
    Matcher m = DURATION.matcher(value);
    if (!m.matches()) {
      throw new IllegalArgumentException("expected " + EXPECTED + ": " + value);
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "ms" : m.group(2).toLowerCase(Locale.ROOT);
    long factor;
    switch (unit) {
      case "h":
        factor = 3_600_000L;
        break;
      case "m":
        factor = 60_000L;
        break;
      case "s":
        factor = 1_000L;
        break;
      default:
        factor = 1L;
    }
    try {
      return Math.multiplyExact(amount, factor);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("expected " + EXPECTED + ": " + value + " is too large");
    }
  }
}
