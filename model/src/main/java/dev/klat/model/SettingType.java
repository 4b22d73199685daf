package dev.klat.model;

import java.net.URI;

/**
 * The type of one setting in a configuration table (the agent's, the broker probe's, the
 * collector's): what values it takes, checked by {@link SettingValues}, and how the tables and
 * their documentation write it ({@link #describe()}, the doc tests' "type" column). One object
 * holds both, so that a range cannot differ between the check and the documentation.
 *
 * <p>Immutable. Built without lambdas: the agent builds its table in {@code premain}.
 */
public final class SettingType {
  /** What kind of value a setting takes; ranges and choices narrow it. */
  private enum Kind {
    BOOLEAN,
    INTEGER,
    DECIMAL,
    DURATION,
    CHOICE,
    URL,
    TEXT,
    PORT
  }

  private final Kind kind;
  private final long min;
  private final long max;
  private final double minDecimal;
  private final double maxDecimal;
  private final String[] choices;
  private final String description;
  private final boolean emptyAllowed;

  private SettingType(
      Kind kind,
      long min,
      long max,
      double minDecimal,
      double maxDecimal,
      String[] choices,
      String description,
      boolean emptyAllowed) {
    this.kind = kind;
    this.min = min;
    this.max = max;
    this.minDecimal = minDecimal;
    this.maxDecimal = maxDecimal;
    this.choices = choices;
    this.description = description;
    this.emptyAllowed = emptyAllowed;
  }

  private static SettingType of(Kind kind, long min, long max, String description) {
    return new SettingType(kind, min, max, 0, 0, null, description, false);
  }

  /** {@code true} or {@code false}; written "boolean". */
  public static SettingType bool() {
    return of(Kind.BOOLEAN, 0, 0, "boolean");
  }

  /**
   * A whole number from {@code min} to {@code max}; written "integer > 0", "integer from a to b".
   */
  public static SettingType integer(long min, long max) {
    return of(Kind.INTEGER, min, max, SettingValues.integerRange(min, max));
  }

  /** A TCP port, 0 to 65535, where 0 lets the system pick one; written "port". */
  public static SettingType port() {
    return of(Kind.PORT, 0, 65_535, "port");
  }

  /**
   * A plain decimal number from {@code min} to {@code max} ({@link Double#POSITIVE_INFINITY}: no
   * upper bound); written "number in [0, 1]" or "number >= 0".
   */
  public static SettingType decimal(double min, double max) {
    String description =
        max == Double.POSITIVE_INFINITY
            ? "number >= " + SettingValues.formatNumber(min)
            : "number in ["
                + SettingValues.formatNumber(min)
                + ", "
                + SettingValues.formatNumber(max)
                + "]";
    return new SettingType(Kind.DECIMAL, 0, 0, min, max, null, description, false);
  }

  /**
   * A duration ({@link Durations}) from {@code minMillis} to {@code maxMillis} ({@link
   * Long#MAX_VALUE}: no upper bound); written "duration", "duration > 0", "duration >= 100ms" or
   * "duration from 10ms to 10s".
   */
  public static SettingType duration(long minMillis, long maxMillis) {
    String description;
    if (maxMillis == Long.MAX_VALUE) {
      description =
          minMillis <= 0
              ? "duration"
              : minMillis == 1 ? "duration > 0" : "duration >= " + Durations.format(minMillis);
    } else {
      description =
          "duration from " + Durations.format(minMillis) + " to " + Durations.format(maxMillis);
    }
    return of(Kind.DURATION, minMillis, maxMillis, description);
  }

  /** One of {@code choices}, in any case; written "`a`, `b` or `c`". */
  public static SettingType choice(String... choices) {
    StringBuilder description = new StringBuilder();
    for (int i = 0; i < choices.length; i++) {
      description
          .append(i == 0 ? "" : i == choices.length - 1 ? " or " : ", ")
          .append('`')
          .append(choices[i])
          .append('`');
    }
    return new SettingType(Kind.CHOICE, 0, 0, 0, 0, choices.clone(), description.toString(), false);
  }

  /** An OTLP/HTTP base URL ({@link SettingValues#parseBaseUrl}); written "URL". */
  public static SettingType url() {
    return of(Kind.URL, 0, 0, "URL");
  }

  /**
   * Any text, checked (if at all) where it is used; written as {@code description}, for example
   * "string", "host", "regex" or "path".
   */
  public static SettingType text(String description) {
    return of(Kind.TEXT, 0, 0, description);
  }

  /**
   * This type, or an empty value (after trimming) meaning "none" or "off"; written with " or
   * empty", for example "port or empty".
   */
  public SettingType orEmpty() {
    return new SettingType(
        kind, min, max, minDecimal, maxDecimal, choices, description + " or empty", true);
  }

  /** How the tables and their documentation write this type, for example "integer > 0". */
  public String describe() {
    return description;
  }

  /** Whether an empty value is allowed ({@link #orEmpty()}). */
  public boolean emptyAllowed() {
    return emptyAllowed;
  }

  /**
   * Checks {@code value} against this type.
   *
   * @throws SettingValueException saying what was expected
   */
  public void check(String value) {
    if (emptyAllowed && isEmpty(value)) {
      return;
    }
    switch (kind) {
      case BOOLEAN:
        SettingValues.parseBoolean(value);
        return;
      case INTEGER:
      case PORT:
        longValue(value);
        return;
      case DECIMAL:
        decimalValue(value);
        return;
      case DURATION:
        millisValue(value);
        return;
      case CHOICE:
        choiceValue(value);
        return;
      case URL:
        urlValue(value);
        return;
      default:
        return;
    }
  }

  /** The value of a boolean setting. */
  public boolean booleanValue(String value) {
    expectKind(Kind.BOOLEAN);
    return SettingValues.parseBoolean(value);
  }

  /** The value of an integer setting (or a port). */
  public long longValue(String value) {
    if (kind == Kind.PORT) {
      try {
        return SettingValues.parseLong(value, min, max);
      } catch (SettingValueException e) {
        throw new SettingValueException("a port (" + min + " to " + max + ")");
      }
    }
    expectKind(Kind.INTEGER);
    return SettingValues.parseLong(value, min, max);
  }

  /** The value of an integer setting whose range fits an {@code int}. */
  public int intValue(String value) {
    if (max > Integer.MAX_VALUE || min < Integer.MIN_VALUE) {
      throw new IllegalStateException(description + " does not fit an int");
    }
    return (int) longValue(value);
  }

  /** The value of a decimal setting. */
  public double decimalValue(String value) {
    expectKind(Kind.DECIMAL);
    return SettingValues.parseDecimal(value, minDecimal, maxDecimal);
  }

  /** The value of a duration setting, in milliseconds. */
  public long millisValue(String value) {
    expectKind(Kind.DURATION);
    return SettingValues.parseDurationMillis(value, min, max);
  }

  /** The value of a choice setting, as its choice is listed. */
  public String choiceValue(String value) {
    expectKind(Kind.CHOICE);
    return SettingValues.parseChoice(value, choices);
  }

  /** The value of a URL setting. */
  public URI urlValue(String value) {
    expectKind(Kind.URL);
    return SettingValues.parseBaseUrl(value);
  }

  @Override
  public String toString() {
    return description;
  }

  private void expectKind(Kind expected) {
    if (kind != expected) {
      // A table that reads a setting as another type than it declares: a bug, not a user's error.
      throw new IllegalStateException("a setting of type " + description + " read as another");
    }
  }

  private static boolean isEmpty(String value) {
    return value == null || value.trim().isEmpty();
  }
}
