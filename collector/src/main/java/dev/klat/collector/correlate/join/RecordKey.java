package dev.klat.collector.correlate.join;

/**
 * The join key of section 7 of the latency model: one record is one offset of one partition of one
 * topic.
 *
 * @param topic the topic
 * @param partition the partition number
 * @param offset the record's offset in its partition
 */
public record RecordKey(String topic, int partition, long offset) {}
