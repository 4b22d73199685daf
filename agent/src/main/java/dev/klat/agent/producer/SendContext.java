package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.link.ThreadLinks;

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

  // The context of the first thread that sent. Most applications send from one thread, and for it
  // a comparison with the current thread replaces the ThreadLocal's lookup, twice a record. Set
  // once, never replaced (a thread that ends keeps it), since threads taking turns would otherwise
  // write it on every record. A plain field: a thread that reads a stale null takes the
  // ThreadLocal, and the owner field is final, so another thread's context is never seen
  // half-built.
  private static SendContext first;

  private final Thread owner = Thread.currentThread();

  /** This thread's link state: the inputs it took since its last send (section 9). */
  final ThreadLinks links = ThreadLinks.current();

  /** Whether {@link #sendNanos} and {@link #instruments} belong to a send not yet appended. */
  boolean pending;

  long sendNanos;

  /** The instruments of the last record sent that is recorded; valid while {@link #pending}. */
  TopicInstruments instruments;

  /** The tracker of the record being sent when it is sampled, until its append; else null. */
  RecordTracker sampled;

  /**
   * How many more records without a traceparent this thread sends unsampled before the next one
   * wins the probability draw: the gap drawn at once ({@link SendSampling#gap}) instead of a random
   * draw per record. Valid for {@link #gapRuntime} only, so that a new runtime's probability starts
   * a new gap.
   */
  long recordsBeforeNextDraw;

  AgentRuntime gapRuntime;

  /** The batch being split on this thread, and the index of its next record to hand over. */
  BatchTiming splitSource;

  int splitCursor;

  private SendContext() {}

  static SendContext current() {
    SendContext context = first;
    if (context != null && context.owner == Thread.currentThread()) {
      return context;
    }
    return lookUp();
  }

  private static SendContext lookUp() {
    SendContext context = CURRENT.get();
    if (first == null) {
      first = context;
    }
    return context;
  }
}
