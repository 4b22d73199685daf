package dev.klat.agent.producer;

import org.apache.kafka.common.TopicPartition;

/**
 * The batch whose callbacks are running on this thread. {@code ProducerBatch} fires its records'
 * callbacks synchronously inside {@code completeFutureAndFireCallbacks}; the agent's record
 * callback reads the batch from here instead of holding a reference to it.
 *
 * <p>A per-thread stack of preallocated frames: a user callback may itself complete another batch
 * (rare, but legal), and the hot path must not allocate.
 */
final class CompletionContext {

  private static final int MAX_DEPTH = 4;

  private static final ThreadLocal<CompletionContext> CURRENT =
      new ThreadLocal<CompletionContext>() {
        @Override
        protected CompletionContext initialValue() {
          return new CompletionContext();
        }
      };

  private final Frame[] frames = new Frame[MAX_DEPTH];
  private int depth;

  private CompletionContext() {
    for (int i = 0; i < MAX_DEPTH; i++) {
      frames[i] = new Frame();
    }
  }

  static void push(
      Object batch,
      BatchTiming timing,
      long baseOffset,
      long logAppendTime,
      int recordCount,
      TopicPartition topicPartition,
      long ackNanos) {
    CompletionContext context = CURRENT.get();
    if (context.depth >= MAX_DEPTH) {
      // Only frames left behind by exceptions that escaped a completion (the pop never ran) get
      // this deep: they are stale, and the thread starts over.
      context.clearAll();
    }
    int depth = context.depth++;
    if (depth < MAX_DEPTH) {
      Frame frame = context.frames[depth];
      frame.batch = batch;
      frame.timing = timing;
      frame.baseOffset = baseOffset;
      frame.logAppendTime = logAppendTime;
      frame.recordCount = recordCount;
      frame.topicPartition = topicPartition;
      frame.ackNanos = ackNanos;
    }
  }

  static void pop() {
    CompletionContext context = CURRENT.get();
    if (context.depth > 0) {
      int depth = --context.depth;
      if (depth < MAX_DEPTH) {
        context.frames[depth].clear();
      }
    }
  }

  private void clearAll() {
    for (Frame frame : frames) {
      frame.clear();
    }
    depth = 0;
  }

  /** The innermost batch completing on this thread, or null outside a batch completion. */
  static Frame current() {
    CompletionContext context = CURRENT.get();
    int depth = context.depth;
    return depth > 0 && depth <= MAX_DEPTH ? context.frames[depth - 1] : null;
  }

  /** One completing batch. Fields are valid only while its callbacks run. */
  static final class Frame {
    Object batch;
    BatchTiming timing;
    long baseOffset;
    long logAppendTime;
    int recordCount;
    TopicPartition topicPartition;

    /** A: when the batch's completion began. */
    long ackNanos;

    void clear() {
      batch = null;
      timing = null;
      topicPartition = null;
    }
  }
}
