package dev.klat.agent.tail;

import dev.klat.model.Durations;
import dev.klat.model.SettingValueException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * A parsed {@code klat.tail.producer.threshold} or {@code klat.tail.consumer.threshold}: {@code
 * auto}, a duration, or a comma list of {@code [topic=]value} whose entry without {@code topic=} is
 * the default for the other topics (without one, the default is {@code auto}). Immutable.
 */
public final class ThresholdSpec {

  /** What {@link #nanosFor} returns for a topic whose threshold is {@code auto}. */
  public static final long AUTO = -1L;

  /** What the setting's values look like, for error messages. */
  static final String EXPECTED =
      "auto, a duration such as 250ms, or a comma list of [topic=]value such as"
          + " 500ms,payments=100ms,audit=auto";

  /** The longest threshold accepted: a day, as {@code klat.test.clock-offset}. */
  static final long MAX_MILLIS = 86_400_000L;

  private static final long NANOS_PER_MILLI = 1_000_000L;

  /** {@code auto} for every topic. */
  public static final ThresholdSpec ALL_AUTO =
      new ThresholdSpec(AUTO, Collections.<String, Long>emptyMap(), "auto");

  private final long defaultNanos;
  private final Map<String, Long> byTopic;
  private final String text;

  private ThresholdSpec(long defaultNanos, Map<String, Long> byTopic, String text) {
    this.defaultNanos = defaultNanos;
    this.byTopic = byTopic;
    this.text = text;
  }

  /**
   * Parses a setting's trimmed, non-empty value.
   *
   * @throws SettingValueException naming the entry that is wrong and what was expected
   */
  public static ThresholdSpec parse(String value) {
    long defaultNanos = AUTO;
    boolean defaultSeen = false;
    Map<String, Long> byTopic = new HashMap<>();
    String[] entries = value.split(",", -1);
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i].trim();
      String where = entries.length == 1 ? "" : "entry " + (i + 1) + " (\"" + entry + "\"): ";
      if (entry.isEmpty()) {
        throw new SettingValueException(where + "empty; " + EXPECTED);
      }
      int equals = entry.indexOf('=');
      if (equals < 0) {
        if (defaultSeen) {
          throw new SettingValueException(
              where + "a second entry without topic=; only one default is allowed. " + EXPECTED);
        }
        defaultSeen = true;
        defaultNanos = parseValue(entry, where);
        continue;
      }
      String topic = entry.substring(0, equals).trim();
      if (topic.isEmpty()) {
        throw new SettingValueException(where + "no topic before '='; " + EXPECTED);
      }
      if (byTopic.containsKey(topic)) {
        throw new SettingValueException(where + "topic " + topic + " is given twice");
      }
      byTopic.put(topic, parseValue(entry.substring(equals + 1).trim(), where));
    }
    return new ThresholdSpec(defaultNanos, Collections.unmodifiableMap(byTopic), value);
  }

  private static long parseValue(String value, String where) {
    if ("auto".equalsIgnoreCase(value)) {
      return AUTO;
    }
    long millis;
    try {
      millis = Durations.parseMillis(value);
    } catch (IllegalArgumentException e) {
      throw new SettingValueException(
          where + "\"" + value + "\" is not auto or a duration; " + EXPECTED);
    }
    if (millis <= 0 || millis > MAX_MILLIS) {
      throw new SettingValueException(
          where + "a threshold must be above 0 and at most a day (24h), not " + value);
    }
    return millis * NANOS_PER_MILLI;
  }

  /**
   * The threshold of {@code topic} in nanoseconds, or {@link #AUTO}.
   *
   * @param topic a topic name
   */
  public long nanosFor(String topic) {
    Long nanos = byTopic.get(topic);
    return nanos != null ? nanos : defaultNanos;
  }

  /** Whether some topic's threshold is {@code auto}. */
  public boolean anyAuto() {
    if (defaultNanos == AUTO) {
      return true;
    }
    for (Long nanos : byTopic.values()) {
      if (nanos == AUTO) {
        return true;
      }
    }
    return false;
  }

  /** The setting's value as given. */
  @Override
  public String toString() {
    return text;
  }
}
