package dev.klat.collector.correlate.join;

/**
 * What a sampled consumer span says about the consumer's settings and the application's pace: the
 * evidence the diagnosis weighs against catch-up and fetch. Each value is -1 where the agent did
 * not report it.
 *
 * @param fetchMinBytes {@code fetch.min.bytes}
 * @param fetchMaxWaitMs {@code fetch.max.wait.ms}
 * @param maxPollRecords {@code max.poll.records}
 * @param pollGapNanos the application's time between the previous {@code poll()}'s return and the
 *     {@code poll()} that returned the record
 * @param previousPollRecords how many records that previous {@code poll()} returned
 * @param assignedPartitions the partitions of the record's topic assigned to the consumer
 */
public record ConsumerEvidence(
    int fetchMinBytes,
    long fetchMaxWaitMs,
    long maxPollRecords,
    long pollGapNanos,
    long previousPollRecords,
    long assignedPartitions) {

  /** Nothing reported. */
  public static final ConsumerEvidence UNKNOWN = new ConsumerEvidence(-1, -1, -1, -1, -1, -1);
}
