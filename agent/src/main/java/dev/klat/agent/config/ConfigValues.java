package dev.klat.agent.config;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.SettingValueException;
import dev.klat.model.SettingValues;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The agent's own value types, beyond those every klat setting shares ({@link SettingValues},
 * through each {@link ConfigKey}'s type). Each takes a trimmed, non-empty string and either returns
 * the typed value or throws {@link SettingValueException} saying what was expected.
 */
final class ConfigValues {

  private static final long DAY_MILLIS = 86_400_000L;

  private ConfigValues() {}

  /**
   * Checks that {@code value} compiles as a regular expression, and returns it: the {@link
   * TopicFilter} compiles it again when it first sees a topic.
   */
  static String parseRegex(String value) {
    try {
      Pattern.compile(value);
      return value;
    } catch (PatternSyntaxException e) {
      // getMessage() spans several lines; the description and index fit in one.
      throw new SettingValueException(
          "a Java regular expression ("
              + e.getDescription()
              + (e.getIndex() >= 0 ? " near index " + e.getIndex() : "")
              + ")");
    } catch (RuntimeException e) {
      throw new SettingValueException("a Java regular expression (" + e + ")");
    }
  }

  /**
   * Parses a duration ({@link dev.klat.model.Durations}) with an optional leading {@code -}, of at
   * most a day either way.
   */
  static long parseSignedDurationMillis(String value) {
    boolean negative = value.startsWith("-");
    long millis;
    try {
      millis =
          SettingValues.parseDurationMillis(
              negative ? value.substring(1).trim() : value, 0, DAY_MILLIS);
    } catch (SettingValueException e) {
      throw new SettingValueException(
          "a duration such as 250ms, -250ms or 1s, at most a day either way");
    }
    return negative ? -millis : millis;
  }

  /** One of the {@link ConfigKey#LOG_LEVEL} choices, in any case, as an {@link AgentLog.Level}. */
  static AgentLog.Level parseLogLevel(String value) {
    return AgentLog.Level.parse(ConfigKey.LOG_LEVEL.setting.type().choiceValue(value));
  }
}
