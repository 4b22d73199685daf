package dev.klat.collector.receive;

/**
 * The checks every string from the wire passes before the collector keeps it, made where it enters
 * (spans, metric points, probe records), so that nothing downstream holds a name larger than these
 * limits:
 *
 * <ul>
 *   <li>a topic as Kafka allows it: 1 to {@value #MAX_TOPIC_CHARS} characters of {@code
 *       [a-zA-Z0-9._-]} ({@code org.apache.kafka.common.internals.Topic}'s rule, 249 so that a
 *       partition directory name fits 255 bytes);
 *   <li>any other name (consumer group, client id, instance id, service or host name, an error
 *       name): at most {@value #MAX_NAME_CHARS} characters. Kafka itself bounds neither a group id
 *       nor a client id, but 255 is the longest host name DNS allows (RFC 1035), longer than any
 *       generated id (a UUID is 36) and any group name seen in practice, and it keeps the label of
 *       a series below half a kilobyte.
 * </ul>
 *
 * A check returns null when the value passes, or the reason it does not, for the partial success
 * and its count.
 */
public final class WireNames {
  /** Kafka's own longest topic name. */
  public static final int MAX_TOPIC_CHARS = 249;

  /** The longest group id, client id, instance id, service or host name kept. */
  public static final int MAX_NAME_CHARS = 255;

  /** The reason a topic name Kafka does not allow is counted under. */
  public static final String REASON_TOPIC = "topic-name";

  /** The reason a name longer than {@link #MAX_NAME_CHARS} is counted under. */
  public static final String REASON_NAME = "name-too-long";

  /** The reason a label value that is not of its label's kind is counted under. */
  public static final String REASON_LABEL = "label-value";

  private WireNames() {}

  /** Null when {@code topic} is a topic name Kafka allows, else the reason. */
  public static String topicProblem(String topic) {
    if (topic.isEmpty()) {
      return "empty topic name";
    }
    if (topic.length() > MAX_TOPIC_CHARS) {
      return "topic name of " + topic.length() + " characters (at most " + MAX_TOPIC_CHARS + ")";
    }
    for (int i = 0; i < topic.length(); i++) {
      char c = topic.charAt(i);
      boolean legal =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      if (!legal) {
        return "topic name with a character Kafka does not allow (" + (int) c + ")";
      }
    }
    return null;
  }

  /**
   * Null when {@code value} (named {@code what} in the reason) is short enough, else the reason.
   */
  public static String nameProblem(String what, String value) {
    return value.length() <= MAX_NAME_CHARS
        ? null
        : what + " of " + value.length() + " characters (at most " + MAX_NAME_CHARS + ")";
  }
}
