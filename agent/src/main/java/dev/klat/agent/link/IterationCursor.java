package dev.klat.agent.link;

/**
 * The state of one {@code ConsumerRecords} iterator created on a thread whose latest poll returned
 * sampled records: those records in the order this iterator will hand them out, and the next one
 * expected. Per record taken: one reference comparison and, for a record that is not the expected
 * one, one store of a boolean; the expected record moves the cursor on and is noted as taken on the
 * thread's {@link ThreadLinks}.
 *
 * <p>Written by the thread that iterates. An iterator handed to another thread writes to the links
 * of the thread that created it, racing with that thread's sends: at worst a link lost or given to
 * that thread's next send (the readers tolerate a missing input, and the hooks catch everything).
 * {@code docs/pipelines.md} lists the executor case as not linked.
 */
public final class IterationCursor {

  // After the last expected record: no record is this object.
  private static final Object NONE = new Object();

  private final ThreadLinks links;
  private final Object[] order;
  private final InputLink[] orderLinks;
  private final int count;
  private int next;
  private Object expected;

  /**
   * A cursor over {@code count} expected records, in iteration order, and their links; the arrays
   * are the cursor's own.
   */
  public IterationCursor(ThreadLinks links, Object[] order, InputLink[] orderLinks, int count) {
    this.links = links;
    this.order = order;
    this.orderLinks = orderLinks;
    this.count = count;
    this.expected = count > 0 ? order[0] : NONE;
  }

  /** The iterator handed out {@code record} (null at its end). */
  public void taken(Object record) {
    if (record != expected) {
      links.tookUnlinked = true;
      return;
    }
    links.taken(orderLinks[next]);
    next++;
    expected = next < count ? order[next] : NONE;
  }

  /** How many expected records are left, for tests. */
  public int remaining() {
    return count - next;
  }
}
