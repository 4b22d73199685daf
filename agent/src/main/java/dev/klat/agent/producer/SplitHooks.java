package dev.klat.agent.producer;

import dev.klat.agent.weave.States;

/**
 * The hooks on {@code ProducerBatch.split}, which Kafka runs when a broker rejected a batch as too
 * large: the records move, in their order, to new batches, and their send times move with them.
 * Apart from {@link ProducerHooks} because they run only on that rare path.
 *
 * <p>Public only because woven code in kafka-clients' packages calls it.
 */
public final class SplitHooks {

  private SplitHooks() {}

  /** At {@code ProducerBatch.split} entry: its records are about to move to new batches. */
  public static void onSplitStart(Object batch) {
    try {
      Object state = States.get(batch);
      SendContext context = SendContext.current();
      context.splitSource = state instanceof BatchTiming ? (BatchTiming) state : null;
      context.splitCursor = 0;
    } catch (Throwable t) {
      ProducerHooks.warn("producer-split", t);
    }
  }

  /**
   * At each return of {@code ProducerBatch.tryAppendForSplit}: records move in their original
   * order, so the next S of the batch being split belongs to the record just appended.
   */
  public static void onSplitAppended(boolean appended, Object newBatch) {
    if (!appended) {
      return;
    }
    try {
      SendContext context = SendContext.current();
      BatchTiming source = context.splitSource;
      if (source != null && source.instruments != null && context.splitCursor < source.appended) {
        int index = context.splitCursor++;
        BatchTiming target = ProducerHooks.timingOf(newBatch);
        target.append(source.instruments, source.sendNanosAt(index));
        RecordTracker sampled = source.sampledCount > 0 ? source.sampledAt(index) : null;
        if (sampled != null) {
          target.addSampled(sampled);
        }
      }
    } catch (Throwable t) {
      ProducerHooks.warn("producer-split", t);
    }
  }

  /** At each return of {@code ProducerBatch.split}. */
  public static void onSplitEnd() {
    try {
      SendContext.current().splitSource = null;
    } catch (Throwable t) {
      ProducerHooks.warn("producer-split", t);
    }
  }
}
