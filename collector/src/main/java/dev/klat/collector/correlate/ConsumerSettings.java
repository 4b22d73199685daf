package dev.klat.collector.correlate;

/**
 * The consumer settings a sampled consumer span carried; each -1 where the agent could not read it.
 *
 * @param fetchMinBytes {@code fetch.min.bytes}
 * @param fetchMaxWaitMs {@code fetch.max.wait.ms}
 * @param maxPollRecords {@code max.poll.records}
 */
public record ConsumerSettings(int fetchMinBytes, long fetchMaxWaitMs, long maxPollRecords) {

  /** Nothing reported. */
  public static final ConsumerSettings UNKNOWN = new ConsumerSettings(-1, -1, -1);
}
