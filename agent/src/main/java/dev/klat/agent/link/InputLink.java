package dev.klat.agent.link;

/**
 * One sampled consumed record an output record can be linked to (section 9 of the latency model):
 * where it was read (topic, partition, offset, group) and the ids of the consumer span the agent
 * made for it. Made once per sampled consumed record, at {@code poll()} exit; immutable, so that
 * the threads that send and the exporter may share it.
 */
public final class InputLink {

  public final String topic;
  public final int partition;
  public final long offset;

  /** The consumer's group, or null when it has none. */
  public final String group;

  public final long traceIdHigh;
  public final long traceIdLow;

  /** The span id of the consumer span of this record: the parent of the outputs linked to it. */
  public final long consumerSpanId;

  public InputLink(
      String topic,
      int partition,
      long offset,
      String group,
      long traceIdHigh,
      long traceIdLow,
      long consumerSpanId) {
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.group = group;
    this.traceIdHigh = traceIdHigh;
    this.traceIdLow = traceIdLow;
    this.consumerSpanId = consumerSpanId;
  }

  @Override
  public String toString() {
    return topic + "-" + partition + "@" + offset + (group != null ? " (" + group + ")" : "");
  }
}
