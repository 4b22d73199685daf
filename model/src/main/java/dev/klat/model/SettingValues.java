package dev.klat.model;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * The one parser of setting values, for the agent, the broker probe and the collector alike. Each
 * method takes the value as a user wrote it (surrounding blanks are ignored) and returns it typed,
 * or throws {@link SettingValueException} saying what was expected. What a table declares about a
 * setting's type goes through {@link SettingType}, which calls these.
 *
 * <p>Strict on purpose: a boolean is {@code true} or {@code false} and nothing else, so that {@code
 * yes} is an error rather than a silent {@code false}; a number is a plain decimal, not Java's
 * {@code NaN}, {@code 0x1p3} or {@code 1d}.
 *
 * <p>Scanned by hand, without regular expressions or lambdas: the agent parses its settings in
 * {@code premain}, before the application's {@code main}, where a compiled pattern or a generated
 * lambda class is start-up time that every application pays.
 */
public final class SettingValues {

  private SettingValues() {}

  /**
   * {@code true} or {@code false}, in any case.
   *
   * @throws SettingValueException for anything else, {@code yes}, {@code 1} and {@code on} too
   */
  public static boolean parseBoolean(String value) {
    String v = trimmed(value);
    if ("true".equalsIgnoreCase(v)) {
      return true;
    }
    if ("false".equalsIgnoreCase(v)) {
      return false;
    }
    throw new SettingValueException("true or false");
  }

  /**
   * A whole number from {@code min} to {@code max}: an optional sign and ASCII digits, which a
   * single {@code _} may group ({@code 32_768}), as in Java source.
   *
   * @throws SettingValueException if it is not such a number or is out of range
   */
  public static long parseLong(String value, long min, long max) {
    String v = trimmed(value);
    int n = v.length();
    int i = n > 0 && (v.charAt(0) == '-' || v.charAt(0) == '+') ? 1 : 0;
    StringBuilder digits = new StringBuilder(n);
    if (i == 1) {
      digits.append(v.charAt(0));
    }
    boolean previousWasDigit = false;
    for (; i < n; i++) {
      char c = v.charAt(i);
      if (isDigit(c)) {
        digits.append(c);
        previousWasDigit = true;
      } else if (c == '_' && previousWasDigit && i + 1 < n && isDigit(v.charAt(i + 1))) {
        previousWasDigit = false;
      } else {
        throw new SettingValueException(integerExpected(min, max, false));
      }
    }
    if (!previousWasDigit) {
      throw new SettingValueException(integerExpected(min, max, false));
    }
    long parsed;
    try {
      parsed = Long.parseLong(digits.toString());
    } catch (NumberFormatException e) {
      // Only more digits than a long holds get here.
      throw new SettingValueException(integerExpected(min, max, true));
    }
    if (parsed < min || parsed > max) {
      throw new SettingValueException(integerExpected(min, max, parsed > max));
    }
    return parsed;
  }

  /** {@link #parseLong} for an {@code int}. */
  public static int parseInt(String value, int min, int max) {
    return (int) parseLong(value, min, max);
  }

  /**
   * A plain decimal number ({@link #isPlainDecimal}) from {@code min} to {@code max}, finite;
   * {@code max} may be {@link Double#POSITIVE_INFINITY} for no upper bound.
   *
   * @throws SettingValueException if it is not such a number or is out of range
   */
  public static double parseDecimal(String value, double min, double max) {
    String v = trimmed(value);
    String expected = decimalExpected(min, max);
    if (!isPlainDecimal(v)) {
      throw new SettingValueException(expected);
    }
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new SettingValueException(expected);
    }
    if (Double.isNaN(d) || Double.isInfinite(d) || d < min || d > max) {
      throw new SettingValueException(expected);
    }
    return d;
  }

  /**
   * Whether {@code value} is a plain decimal number, {@code [+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?}
   * with ASCII digits; so not Java's extras such as "NaN", "Infinity", "0x1p3" or "1d".
   */
  public static boolean isPlainDecimal(String value) {
    int n = value.length();
    int i = 0;
    if (i < n && (value.charAt(i) == '+' || value.charAt(i) == '-')) {
      i++;
    }
    int integerDigits = digitsAt(value, i);
    i += integerDigits;
    int fractionDigits = 0;
    if (i < n && value.charAt(i) == '.') {
      i++;
      fractionDigits = digitsAt(value, i);
      i += fractionDigits;
    }
    if (integerDigits == 0 && fractionDigits == 0) {
      return false;
    }
    if (i < n && (value.charAt(i) == 'e' || value.charAt(i) == 'E')) {
      i++;
      if (i < n && (value.charAt(i) == '+' || value.charAt(i) == '-')) {
        i++;
      }
      int exponentDigits = digitsAt(value, i);
      if (exponentDigits == 0) {
        return false;
      }
      i += exponentDigits;
    }
    return i == n;
  }

  /**
   * A duration ({@link Durations}) in milliseconds, from {@code minMillis} to {@code maxMillis}.
   *
   * @throws SettingValueException if it is not a duration or is out of range
   */
  public static long parseDurationMillis(String value, long minMillis, long maxMillis) {
    long millis;
    try {
      millis = Durations.parseMillis(trimmed(value));
    } catch (IllegalArgumentException e) {
      throw new SettingValueException(Durations.EXPECTED);
    }
    if (millis < minMillis || millis > maxMillis) {
      throw new SettingValueException(durationRange(minMillis, maxMillis));
    }
    return millis;
  }

  /**
   * One of {@code choices}, in any case; returns the choice as listed.
   *
   * @throws SettingValueException for anything else
   */
  public static String parseChoice(String value, String... choices) {
    String v = trimmed(value);
    for (String choice : choices) {
      if (choice.equalsIgnoreCase(v)) {
        return choice;
      }
    }
    StringBuilder expected = new StringBuilder("one of ");
    for (int i = 0; i < choices.length; i++) {
      expected.append(i == 0 ? "" : ", ").append(choices[i]);
    }
    throw new SettingValueException(expected.toString());
  }

  /**
   * The base URL of an OTLP/HTTP endpoint: {@code http} or {@code https}, with a host, and without
   * query or fragment, since signal paths such as {@code /v1/traces} are appended to it. A path is
   * kept as a prefix.
   *
   * @throws SettingValueException saying which of these the value breaks
   */
  public static URI parseBaseUrl(String value) {
    String expected = "an http or https URL with a host, such as http://collector:4318";
    URI uri;
    try {
      uri = new URI(trimmed(value));
    } catch (URISyntaxException e) {
      throw new SettingValueException(
          expected + " (" + e.getReason() + " at index " + e.getIndex() + ")");
    }
    String scheme = uri.getScheme();
    if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
      throw new SettingValueException(expected + " (the scheme must be http or https)");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new SettingValueException(expected + " (no valid host name)");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new SettingValueException(
          expected + " (no query or fragment: signal paths such as /v1/traces are appended)");
    }
    return uri;
  }

  /** "an integer > 0", "an integer from 16 to 1048576", as an error says it. */
  static String integerExpected(long min, long max, boolean tooLarge) {
    return "an "
        + (tooLarge && max != Long.MAX_VALUE
            ? "integer from " + min + " to " + max
            : integerRange(min, max));
  }

  /**
   * "integer > 0", "integer >= 0", "integer from 16 to 1048576": the range as the tables write it.
   * An upper bound of {@code Integer.MAX_VALUE} or more is no bound worth writing.
   */
  static String integerRange(long min, long max) {
    if (max >= Integer.MAX_VALUE) {
      return min == 1 ? "integer > 0" : min == Long.MIN_VALUE ? "integer" : "integer >= " + min;
    }
    return "integer from " + min + " to " + max;
  }

  /** "a number from 0 to 1", "a number >= 0", as an error says it. */
  static String decimalExpected(double min, double max) {
    return max == Double.POSITIVE_INFINITY
        ? "a number >= " + formatNumber(min)
        : "a number from " + formatNumber(min) + " to " + formatNumber(max);
  }

  /** "more than zero", "at least 100ms", "from 10ms to 10s": a duration's range. */
  static String durationRange(long minMillis, long maxMillis) {
    if (maxMillis == Long.MAX_VALUE) {
      return minMillis == 1 ? "more than zero" : "at least " + Durations.format(minMillis);
    }
    return "from " + Durations.format(minMillis) + " to " + Durations.format(maxMillis);
  }

  /** A bound as a user would write it: {@code 1} rather than {@code 1.0}. */
  static String formatNumber(double d) {
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      return Long.toString((long) d);
    }
    return Double.toString(d);
  }

  private static String trimmed(String value) {
    return value == null ? "" : value.trim();
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int digitsAt(String value, int start) {
    int i = start;
    while (i < value.length() && isDigit(value.charAt(i))) {
      i++;
    }
    return i - start;
  }
}
