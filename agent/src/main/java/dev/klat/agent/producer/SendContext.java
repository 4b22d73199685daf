package dev.klat.agent.producer;

/**
 * Per-thread handoff between hooks that run inside one call of the application's or the network
 * thread's: {@code send()} learns S and the topic's instruments, and the append of that record to
 * its batch, a few frames deeper in the same call, stores them in the batch; a batch being split
 * hands its records' S values to the new batches in record order.
 *
 * <p>One preallocated object per thread instead of a tracker object per record.
 */
final class SendContext {

  private static final ThreadLocal<SendContext> CURRENT =
      new ThreadLocal<SendContext>() {
        @Override
        protected SendContext initialValue() {
          return new SendContext();
        }
      };

  /** Whether {@link #sendNanos} and {@link #instruments} belong to a send not yet appended. */
  boolean pending;

  long sendNanos;

  /** The instruments of the last record sent that is recorded; valid while {@link #pending}. */
  TopicInstruments instruments;

  /** The tracker of the record being sent when it is sampled, until its append; else null. */
  RecordTracker sampled;

  /** The batch being split on this thread, and the index of its next record to hand over. */
  BatchTiming splitSource;

  int splitCursor;

  private SendContext() {}

  static SendContext current() {
    return CURRENT.get();
  }
}
