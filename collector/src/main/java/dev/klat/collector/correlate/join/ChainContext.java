package dev.klat.collector.correlate.join;

/**
 * What a joined pair says about its place in a pipeline (section 9 of the latency model): which
 * agents produced and consumed the record, what its producer span names as its inputs, and its
 * {@code S} and {@code P} on their own hosts' clocks, from which a chain's processing time is taken
 * on one clock.
 *
 * @param producerInstanceId the producer agent's instance id, 0 when unknown
 * @param consumerInstanceId the consumer agent's instance id, 0 when unknown
 * @param producerParentSpanId the producer span's parent span id, or 0
 * @param links the inputs the producer span names, or null
 * @param sendNanos {@code S} on the producer's clock (epoch nanoseconds)
 * @param pollNanos {@code P} on the consumer's clock (epoch nanoseconds), as the agent read it
 */
public record ChainContext(
    long producerInstanceId,
    long consumerInstanceId,
    long producerParentSpanId,
    RecordLinks links,
    long sendNanos,
    long pollNanos) {

  /** The context of a joined producer and consumer span. */
  static ChainContext of(ProducerSpan p, ConsumerSpan c) {
    return new ChainContext(
        p.instanceId(), c.instanceId(), p.parentSpanId(), p.links(), p.sendNanos(), c.pollNanos());
  }
}
