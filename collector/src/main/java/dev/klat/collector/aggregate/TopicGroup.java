package dev.klat.collector.aggregate;

/**
 * A topic and consumer group pair with breakdowns in a window.
 *
 * @param topic the topic
 * @param group the consumer group
 * @param records how many breakdowns it has in the window
 */
public record TopicGroup(String topic, String group, int records) {}
