package dev.klat.collector.pipeline;

import dev.klat.collector.aggregate.HopRecord;
import dev.klat.model.Segment;
import java.util.List;

/**
 * One chain of linked records {@code r1 -> ... -> rn} with the group that read each (section 9 of
 * the latency model), and its figures:
 *
 * <pre>
 *   processing(k) = S(r[k+1]) - P(r[k], g[k])      both on the application's host
 *   e2e           = sum over hops of e2e(r[k], g[k]) + sum over k < n of processing(k)
 * </pre>
 *
 * The identity holds when the {@code 5n + (n - 1)} parts add up to {@code e2e} exactly: every hop's
 * segments (publish and commit together where {@code L} is unknown) add up to its end to end, and
 * every processing time is non-negative and read on one agent's clock (the consumer of hop {@code
 * k} is the producer of hop {@code k + 1}). A chain that breaks it is counted, not dropped.
 *
 * @param hops the hops' breakdowns, first to last
 * @param processingNanos per hop but the last, its processing time
 * @param e2eNanos the chain's end to end
 * @param identityHolds whether the identity above holds
 */
record Chain(List<HopRecord> hops, long[] processingNanos, long e2eNanos, boolean identityHolds) {

  static Chain of(List<HopRecord> hops) {
    long[] processing = new long[hops.size() - 1];
    boolean holds = true;
    long e2e = 0;
    long parts = 0;
    for (int k = 0; k < hops.size(); k++) {
      HopRecord h = hops.get(k);
      e2e += h.e2eNanos();
      parts += partsNanos(h);
      if (k < processing.length) {
        HopRecord next = hops.get(k + 1);
        processing[k] = next.chain().sendNanos() - h.chain().pollNanos();
        e2e += processing[k];
        parts += processing[k];
        long consumer = h.chain().consumerInstanceId();
        long producer = next.chain().producerInstanceId();
        if (processing[k] < 0 || (consumer != 0 && producer != 0 && consumer != producer)) {
          holds = false;
        }
      }
    }
    return new Chain(List.copyOf(hops), processing, e2e, holds && parts == e2e);
  }

  /** {@code S} of the first record, on its producer's clock: which chain of a batch is kept. */
  long firstSendNanos() {
    return hops.get(0).chain().sendNanos();
  }

  /** The last hop. */
  HopRecord last() {
    return hops.get(hops.size() - 1);
  }

  // A hop's segments as the model splits them: the five, or publish+commit where L is unknown.
  private static long partsNanos(HopRecord h) {
    long sum = 0;
    boolean split =
        h.segment(Segment.PUBLISH.ordinal()) >= 0 && h.segment(Segment.COMMIT.ordinal()) >= 0;
    for (Segment s : Segment.values()) {
      if (!split && (s == Segment.PUBLISH || s == Segment.COMMIT)) {
        continue;
      }
      sum += Math.max(0, h.segment(s.ordinal()));
    }
    if (!split) {
      sum += Math.max(0, h.segment(HopRecord.PUBLISH_AND_COMMIT));
    }
    return sum;
  }
}
