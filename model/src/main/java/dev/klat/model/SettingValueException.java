package dev.klat.model;

/**
 * A setting's value that does not parse or is out of range: the one error of {@link SettingValues}
 * and {@link SettingType}. The message says what was expected; {@link #forSetting} names the
 * setting and the value too.
 *
 * <p>It has no stack trace: these are a user's mistakes, reported in one line, not bugs; and the
 * agent may meet several while the application waits for {@code premain}.
 */
public final class SettingValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Longer values are cut in messages, as the agent cuts them: a value is not a log. */
  static final int MAX_QUOTED_CHARS = 200;

  private final String expected;

  /**
   * @param expected what a value must be, completing "expected ...", for example {@code "true or
   *     false"} or {@code "an integer > 0"}
   */
  public SettingValueException(String expected) {
    this("expected " + expected, expected);
  }

  private SettingValueException(String message, String expected) {
    super(message);
    this.expected = expected;
  }

  /**
   * What a value must be, for example {@code "an integer > 0"}; the message is "expected" and it.
   */
  public String expected() {
    return expected;
  }

  /**
   * The same error with a message that names the setting and the value: {@code "<name> must be
   * <expected>: <value>"}, the value on one line and cut to 200 characters.
   */
  public SettingValueException forSetting(String name, String value) {
    return new SettingValueException(name + " must be " + expected + ": " + quote(value), expected);
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }

  private static String quote(String value) {
    if (value == null) {
      return "(none)";
    }
    StringBuilder sb = new StringBuilder(Math.min(value.length(), MAX_QUOTED_CHARS));
    for (int i = 0; i < value.length() && i < MAX_QUOTED_CHARS; i++) {
      char c = value.charAt(i);
      sb.append(Character.isISOControl(c) ? '?' : c);
    }
    return value.length() <= MAX_QUOTED_CHARS
        ? sb.toString()
        : sb + "...(" + value.length() + " chars)";
  }
}
