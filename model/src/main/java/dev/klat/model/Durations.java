package dev.klat.model;

/**
 * The one way klat's settings write a duration, the agent's and the collector's alike: a whole
 * number with a unit, {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, or a plain whole number
 * of milliseconds.
 */
public final class Durations {

  /** What a duration looks like, for error messages. */
  public static final String EXPECTED =
      "a duration such as 500ms, 10s, 5m, 1h or a whole number of milliseconds";

  private static final int MAX_DIGITS = 18;

  private Durations() {}

  /**
   * Parses a duration into milliseconds: optional blanks, 1 to 18 digits, optional blanks, an
   * optional unit {@code ms}, {@code s}, {@code m} or {@code h} in any case, optional blanks.
   *
   * <p>Scanned by hand rather than with a regular expression: the agent parses its durations in
   * {@code premain}, before the application's {@code main}, where compiling a pattern is start-up
   * time every application pays.
   *
   * @throws IllegalArgumentException if {@code value} is not a duration, or too large
   */
  public static long parseMillis(String value) {
    int n = value.length();
    int i = skipBlanks(value, 0);
    int digitsStart = i;
    while (i < n && isDigit(value.charAt(i))) {
      i++;
    }
    int digits = i - digitsStart;
    if (digits == 0 || digits > MAX_DIGITS) {
      throw new IllegalArgumentException("expected " + EXPECTED + ": " + value);
    }
    long amount = Long.parseLong(value.substring(digitsStart, i));
    i = skipBlanks(value, i);
    long factor = 1L;
    if (i < n) {
      char unit = asciiLower(value.charAt(i));
      if (unit == 'm' && i + 1 < n && asciiLower(value.charAt(i + 1)) == 's') {
        i += 2;
      } else if (unit == 's' || unit == 'm' || unit == 'h') {
        factor = unit == 's' ? 1_000L : unit == 'm' ? 60_000L : 3_600_000L;
        i++;
      }
    }
    if (skipBlanks(value, i) != n) {
      throw new IllegalArgumentException("expected " + EXPECTED + ": " + value);
    }
    try {
      return Math.multiplyExact(amount, factor);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("expected " + EXPECTED + ": " + value + " is too large");
    }
  }

  /**
   * {@code millis} as a user would write it, in the largest unit that divides it: {@code 100ms},
   * {@code 10s}, {@code 5m}, {@code 1h}; what {@link #parseMillis} reads back.
   */
  public static String format(long millis) {
    if (millis != 0 && millis % 3_600_000L == 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis != 0 && millis % 60_000L == 0) {
      return millis / 60_000L + "m";
    }
    if (millis != 0 && millis % 1_000L == 0) {
      return millis / 1_000L + "s";
    }
    return millis + "ms";
  }

  /** The pattern's {@code CASE_INSENSITIVE} without {@code UNICODE_CASE}: ASCII letters only. */
  private static char asciiLower(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
  }

  /** ASCII digits only, as {@code \\d} in a {@link java.util.regex.Pattern}. */
  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** The index of the first character at or after {@code i} that is not {@code \\s}'s. */
  private static int skipBlanks(String value, int i) {
    int n = value.length();
    while (i < n) {
      char c = value.charAt(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\u000B' && c != '\f' && c != '\r') {
        break;
      }
      i++;
    }
    return i;
  }
}
