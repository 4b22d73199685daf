package dev.klat.collector.correlate.join;

/**
 * What a sampled producer span says about the producer's settings and the record's batch: the
 * evidence the diagnosis weighs against the produce segment. Each value is -1 where the agent did
 * not report it.
 *
 * @param lingerMs {@code linger.ms}
 * @param batchSizeBytes {@code batch.size}
 * @param bufferMemoryBytes {@code buffer.memory}
 * @param maxInFlight {@code max.in.flight.requests.per.connection}
 * @param batchRecords records in the record's batch
 * @param batchBytes the batch's size in bytes
 * @param attempts how many times the batch was sent (1 without retries)
 * @param appendWaitNanos the time from {@code send()} until the record was in its batch: blocked on
 *     metadata or {@code buffer.memory}
 * @param requestInFlight the requests already in flight to the leader when the batch's request was
 *     sent: at {@code maxInFlight - 1}, it took the connection's last free slot
 * @param requestBatches the batches (partitions) in that request
 * @param acksAll whether the producer used {@code acks=all}
 * @param metadataWaitNanos the part of {@code appendWaitNanos} spent waiting for the topic's
 *     metadata, from Kafka's whole milliseconds; -1 from an agent that does not split the wait
 * @param retryError the error (Kafka's {@code Errors} name) of the last attempt the producer
 *     retried the batch for, such as {@code NOT_ENOUGH_REPLICAS}; "" when the batch was not retried
 *     or the agent did not report it
 */
public record ProducerEvidence(
    long lingerMs,
    long batchSizeBytes,
    long bufferMemoryBytes,
    long maxInFlight,
    long batchRecords,
    long batchBytes,
    long attempts,
    long appendWaitNanos,
    long requestInFlight,
    long requestBatches,
    boolean acksAll,
    long metadataWaitNanos,
    String retryError) {

  /** Nothing reported. */
  public static final ProducerEvidence UNKNOWN =
      new ProducerEvidence(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, false, -1, "");

  public ProducerEvidence {
    retryError = retryError == null ? "" : retryError;
  }

  /** The evidence of an agent that does not report the error a batch was retried for. */
  public ProducerEvidence(
      long lingerMs,
      long batchSizeBytes,
      long bufferMemoryBytes,
      long maxInFlight,
      long batchRecords,
      long batchBytes,
      long attempts,
      long appendWaitNanos,
      long requestInFlight,
      long requestBatches,
      boolean acksAll,
      long metadataWaitNanos) {
    this(
        lingerMs,
        batchSizeBytes,
        bufferMemoryBytes,
        maxInFlight,
        batchRecords,
        batchBytes,
        attempts,
        appendWaitNanos,
        requestInFlight,
        requestBatches,
        acksAll,
        metadataWaitNanos,
        "");
  }

  /** The evidence of an agent that does not split the append wait: no metadata wait. */
  public ProducerEvidence(
      long lingerMs,
      long batchSizeBytes,
      long bufferMemoryBytes,
      long maxInFlight,
      long batchRecords,
      long batchBytes,
      long attempts,
      long appendWaitNanos,
      long requestInFlight,
      long requestBatches,
      boolean acksAll) {
    this(
        lingerMs,
        batchSizeBytes,
        bufferMemoryBytes,
        maxInFlight,
        batchRecords,
        batchBytes,
        attempts,
        appendWaitNanos,
        requestInFlight,
        requestBatches,
        acksAll,
        -1);
  }
}
