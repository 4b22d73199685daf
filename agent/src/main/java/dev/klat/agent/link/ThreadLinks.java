package dev.klat.agent.link;

/**
 * One thread's link state (section 9 of the latency model, "What is linked"): the sampled records
 * its latest {@code poll()} returned, the sampled records it took from {@code ConsumerRecords}
 * since its previous send, and the ones that previous send was linked to.
 *
 * <p>Only this thread writes it: the consumer's {@code poll()} exit and iteration hooks, and the
 * producer's {@code send()} hook. Fixed arrays (at most {@link #MAX_LINKS} inputs are kept per
 * output, the rest only counted); nothing is allocated per record. Kept free of kafka-clients
 * types: one copy serves the producer and consumer hook packages even where those are injected into
 * an application's class loader.
 */
public final class ThreadLinks {

  /** The most linked inputs an output keeps: the first is its parent, the others span links. */
  public static final int MAX_LINKS = 16;

  /** The most sampled records of one poll that can be linked; more are not linked. */
  static final int MAX_POLLED = 256;

  private static final ThreadLocal<ThreadLinks> CURRENT =
      new ThreadLocal<ThreadLinks>() {
        @Override
        protected ThreadLinks initialValue() {
          return new ThreadLinks();
        }
      };

  // The links of the thread that asked last: most applications poll and send on one thread, and a
  // comparison with it spares the ThreadLocal lookup. The thread field is final, so another
  // thread's object is never seen half-built.
  private static ThreadLinks last;

  private final Thread thread = Thread.currentThread();

  /** The sampled records of the latest poll, as returned, and their links; set at poll exit. */
  Object[] polledRecords = new Object[8];

  InputLink[] polledLinks = new InputLink[8];
  int polledCount;

  /** Sampled records taken since the last send; counted past {@link #MAX_LINKS}, kept up to it. */
  private InputLink[] taken = new InputLink[MAX_LINKS];

  /** How many sampled records were taken since the last send. Read by the send hook. */
  public int takenCount;

  /** The inputs of the last send; valid for the next send while no record was taken since. */
  private InputLink[] previous = new InputLink[MAX_LINKS];

  /** How many inputs the last send was linked to, 0 when none is left to reuse. */
  public int previousCount;

  /**
   * Whether a record that is not linked (unsampled, from a poll that returned sampled ones) was
   * taken since the last send: then the next send has no inputs of its own and must not reuse the
   * previous send's. One store per such record.
   */
  public boolean tookUnlinked;

  private ThreadLinks() {}

  /** This thread's links. */
  public static ThreadLinks current() {
    ThreadLinks links = last;
    if (links == null || links.thread != Thread.currentThread()) {
      links = CURRENT.get();
      last = links;
    }
    return links;
  }

  /**
   * At {@code poll()} entry: every link starts afresh. The previous poll's records are no longer
   * the ones this thread iterates, an output after a new poll is no fan-out of an older input, and
   * records taken but followed by no send are dropped: frameworks iterate a poll's records again
   * after the application's code (spring-kafka's acknowledgements), and an application that only
   * consumes would otherwise link a much later, unrelated send to them. The price: a batch gathered
   * over several polls links only to the records taken since the last one.
   */
  public void pollStarted() {
    for (int i = 0; i < polledCount; i++) {
      polledRecords[i] = null;
      polledLinks[i] = null;
    }
    polledCount = 0;
    clearPrevious();
    for (int i = 0; i < Math.min(takenCount, MAX_LINKS); i++) {
      taken[i] = null;
    }
    takenCount = 0;
    tookUnlinked = false;
  }

  /** At {@code poll()} exit, once per sampled record with a consumer span, in returned order. */
  public void polled(Object record, InputLink link) {
    if (polledCount == MAX_POLLED) {
      return;
    }
    if (polledCount == polledRecords.length) {
      polledRecords = java.util.Arrays.copyOf(polledRecords, 2 * polledCount);
      polledLinks = java.util.Arrays.copyOf(polledLinks, 2 * polledCount);
    }
    polledRecords[polledCount] = record;
    polledLinks[polledCount++] = link;
  }

  /** How many sampled records the latest poll returned (and registered). */
  public int polledCount() {
    return polledCount;
  }

  public Object polledRecord(int i) {
    return polledRecords[i];
  }

  public InputLink polledLink(int i) {
    return polledLinks[i];
  }

  /** The application took a sampled record: the next send is linked to it. */
  void taken(InputLink link) {
    // Read once: an iterator handed to another thread writes here too (IterationCursor).
    int count = takenCount;
    if (count < MAX_LINKS) {
      taken[count] = link;
    }
    takenCount = count + 1;
  }

  /**
   * At {@code send()}, when {@link #takenCount} or {@link #previousCount} is not 0: moves the taken
   * inputs to the previous send's (they are this send's), or keeps the previous send's when nothing
   * was taken since, and returns how many inputs this send is linked to, 0 for none: then {@link
   * #linked(int)} gives them, the first up to {@link #MAX_LINKS}.
   */
  public int forSend() {
    if (takenCount > 0) {
      InputLink[] swap = previous;
      previous = taken;
      taken = swap;
      for (int i = 0; i < Math.min(previousCount, MAX_LINKS); i++) {
        taken[i] = null;
      }
      previousCount = takenCount;
      takenCount = 0;
      tookUnlinked = false;
      return previousCount;
    }
    if (tookUnlinked) {
      tookUnlinked = false;
      clearPrevious();
      return 0;
    }
    return previousCount;
  }

  /** The {@code i}-th input of the current send, {@code i < min(forSend(), MAX_LINKS)}. */
  public InputLink linked(int i) {
    return previous[i];
  }

  private void clearPrevious() {
    for (int i = 0; i < Math.min(previousCount, MAX_LINKS); i++) {
      previous[i] = null;
    }
    previousCount = 0;
  }
}
