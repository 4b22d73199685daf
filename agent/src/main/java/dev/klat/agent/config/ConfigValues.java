package dev.klat.agent.config;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.Durations;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Parsers for the value types of the configuration. Each takes a trimmed, non-empty string and
 * either returns the typed value or throws {@link BadValueException} saying what was expected.
 */
final class ConfigValues {

  /** Thrown for a value that does not parse; the message says what is expected. */
  static final class BadValueException extends Exception {
    private static final long serialVersionUID = 1L;

    BadValueException(String expected) {
      // No stack trace: these are user errors reported in one line, not bugs.
      super(expected, null, false, false);
    }
  }

  private ConfigValues() {}

  static boolean parseBoolean(String value) throws BadValueException {
    if ("true".equalsIgnoreCase(value)) {
      return true;
    }
    if ("false".equalsIgnoreCase(value)) {
      return false;
    }
    throw new BadValueException("expected true or false");
  }

  static URI parseEndpoint(String value) throws BadValueException {
    String expected = "expected an http or https URL with a host, such as http://collector:4318";
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw new BadValueException(
          expected + " (" + e.getReason() + " at index " + e.getIndex() + ")");
    }
    String scheme = uri.getScheme();
    if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
      throw new BadValueException(expected + " (the scheme must be http or https)");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new BadValueException(expected + " (no valid host name)");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new BadValueException(
          expected + " (no query or fragment: signal paths such as /v1/traces are appended)");
    }
    return uri;
  }

  static double parseProbability(String value) throws BadValueException {
    String expected = "expected a number from 0 to 1";
    double d = parseDecimal(value, expected);
    if (d < 0 || d > 1) {
      throw new BadValueException(expected);
    }
    return d;
  }

  static double parseRate(String value) throws BadValueException {
    String expected = "expected a number >= 0 (records per second; 0 samples nothing)";
    double d = parseDecimal(value, expected);
    if (d < 0 || Double.isInfinite(d)) {
      throw new BadValueException(expected);
    }
    return d;
  }

  private static double parseDecimal(String value, String expected) throws BadValueException {
    if (!isPlainDecimal(value)) {
      throw new BadValueException(expected);
    }
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new BadValueException(expected);
    }
  }

  /**
   * Whether {@code value} is a plain decimal number, {@code [+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?}
   * with ASCII digits; so not Java's extras such as "NaN", "Infinity", "0x1p3" or "1d". Scanned by
   * hand: a pattern compiled here would be start-up time of every application (premain).
   */
  static boolean isPlainDecimal(String value) {
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

  private static int digitsAt(String value, int start) {
    int i = start;
    while (i < value.length() && value.charAt(i) >= '0' && value.charAt(i) <= '9') {
      i++;
    }
    return i - start;
  }

  /**
   * Checks that {@code value} compiles as a regular expression, and returns it: the {@link
   * TopicFilter} compiles it again when it first sees a topic.
   */
  static String parseRegex(String value) throws BadValueException {
    try {
      Pattern.compile(value);
      return value;
    } catch (PatternSyntaxException e) {
      // getMessage() spans several lines; the description and index fit in one.
      throw new BadValueException(
          "expected a Java regular expression ("
              + e.getDescription()
              + (e.getIndex() >= 0 ? " near index " + e.getIndex() : "")
              + ")");
    } catch (RuntimeException e) {
      throw new BadValueException("expected a Java regular expression (" + e + ")");
    }
  }

  /** Parses a duration ({@link Durations}) and checks it is at least {@code minMillis}. */
  static long parseDurationMillis(String value, long minMillis) throws BadValueException {
    String expected = "expected " + Durations.EXPECTED + ", at least " + minMillis + "ms";
    long millis;
    try {
      millis = Durations.parseMillis(value);
    } catch (IllegalArgumentException e) {
      throw new BadValueException(expected);
    }
    if (millis < minMillis) {
      throw new BadValueException(expected);
    }
    return millis;
  }

  /**
   * Parses a duration as {@link #parseDurationMillis} does, with an optional leading {@code -}, of
   * at most a day either way.
   */
  static long parseSignedDurationMillis(String value) throws BadValueException {
    boolean negative = value.startsWith("-");
    long millis;
    try {
      millis = parseDurationMillis(negative ? value.substring(1).trim() : value, 0);
    } catch (BadValueException e) {
      millis = -1;
    }
    if (millis < 0 || millis > 86_400_000L) {
      throw new BadValueException(
          "expected a duration such as 250ms, -250ms or 1s, at most a day either way");
    }
    return negative ? -millis : millis;
  }

  static int parsePositiveInt(String value) throws BadValueException {
    String expected = "expected a whole number > 0";
    int i;
    try {
      i = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new BadValueException(expected + " and <= " + Integer.MAX_VALUE);
    }
    if (i <= 0) {
      throw new BadValueException(expected);
    }
    return i;
  }

  static AgentLog.Level parseLogLevel(String value) throws BadValueException {
    AgentLog.Level level = AgentLog.Level.parse(value);
    if (level == null) {
      throw new BadValueException("expected one of off, error, warn, info, debug");
    }
    return level;
  }
}
