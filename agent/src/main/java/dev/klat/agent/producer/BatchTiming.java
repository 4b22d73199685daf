package dev.klat.agent.producer;

/**
 * What the agent learns about one producer batch on the sender thread: when it was drained into a
 * produce request (first and last attempt) and which broker the request went to.
 *
 * <p>Written only by the producer's network thread. It is read by the callbacks of the batch's
 * records, which Kafka runs on the same thread except when a batch is aborted (producer close,
 * fatal transaction error); then a stale value is possible and harmless.
 */
final class BatchTiming {
  long firstDrainNanos;
  long lastDrainNanos;
  int drains;
  int leaderNodeId = -1;

  void drained(long nowNanos) {
    if (drains == 0) {
      firstDrainNanos = nowNanos;
    }
    lastDrainNanos = nowNanos;
    drains++;
  }
}
