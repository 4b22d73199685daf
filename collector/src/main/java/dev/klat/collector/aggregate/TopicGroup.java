package dev.klat.collector.aggregate;

/**
 * A topic and consumer group pair with breakdowns in a window.
 *
 * @param topic the topic
 * @param group the consumer group, or share group
 * @param records how many breakdowns it has in the window
 * @param shareGroup whether the group is a share group (section 11 of the latency model)
 */
public record TopicGroup(String topic, String group, int records, boolean shareGroup) {

  /** A consumer group's pair. */
  public TopicGroup(String topic, String group, int records) {
    this(topic, group, records, false);
  }
}
