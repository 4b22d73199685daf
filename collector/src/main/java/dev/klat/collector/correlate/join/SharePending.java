package dev.klat.collector.correlate.join;

import java.util.ArrayList;
import java.util.List;

/**
 * The deliveries of one record to one share group seen so far (section 11 of the latency model),
 * held in the record's {@link JoinTable.Entry} until the counted delivery is known: at once when an
 * accepted delivery and every delivery before it are there, else when the record's window closes.
 * At most {@link #MAX_DELIVERIES} deliveries per record and group; further ones are refused and
 * counted. Not thread-safe: confined to the {@link Correlator}'s lock.
 */
final class SharePending {

  /** Deliveries held per record and share group: a broker delivers at most 10 times. */
  static final int MAX_DELIVERIES = 16;

  /** What a delivery adds beyond its consumer span's estimate: its share fields, its slot. */
  static final int DELIVERY_BYTES = 64;

  /** What the holder adds to its record, beside its deliveries. */
  static final int PENDING_BYTES = 80;

  /** What {@link #add} made of a delivery. */
  enum Added {
    ADDED,
    DUPLICATE,
    REFUSED
  }

  final String group;
  // In arrival order; few, so scanned.
  final List<ConsumerSpan> deliveries = new ArrayList<>(2);
  private final List<Long> sources = new ArrayList<>(2);
  // Set once the counted delivery went to the join; later deliveries are late.
  private ConsumerSpan counted;
  private long countedSource = Correlator.NO_SOURCE;

  SharePending(String group) {
    this.group = group;
  }

  Added add(ConsumerSpan span, long source) {
    for (ConsumerSpan d : deliveries) {
      if (d.share().deliveryCount() == span.share().deliveryCount()) {
        // One delivery count per record and group: a second span of it is an OTLP retry.
        return Added.DUPLICATE;
      }
    }
    if (deliveries.size() >= MAX_DELIVERIES) {
      return Added.REFUSED;
    }
    deliveries.add(span);
    sources.add(source);
    return Added.ADDED;
  }

  /** Whether an accepted delivery and every delivery before it are there. */
  boolean complete() {
    ConsumerSpan accepted = accepted();
    if (accepted == null) {
      return false;
    }
    int n = accepted.share().deliveryCount();
    for (int count = 1; count < n; count++) {
      if (find(count) == null) {
        return false;
      }
    }
    return true;
  }

  /** Whether the counted delivery went to the join. */
  boolean decided() {
    return counted != null;
  }

  /**
   * Chooses the counted delivery: the first accepted one, else the last one seen (the highest
   * delivery count).
   */
  ConsumerSpan decide() {
    ConsumerSpan chosen = accepted();
    if (chosen == null) {
      for (ConsumerSpan d : deliveries) {
        if (chosen == null || d.share().deliveryCount() > chosen.share().deliveryCount()) {
          chosen = d;
        }
      }
    }
    counted = chosen;
    countedSource = sources.get(deliveries.indexOf(chosen));
    return chosen;
  }

  ConsumerSpan counted() {
    return counted;
  }

  long countedSource() {
    return countedSource;
  }

  /** The delivery with this count, or null. */
  ConsumerSpan find(int count) {
    for (ConsumerSpan d : deliveries) {
      if (d.share().deliveryCount() == count) {
        return d;
      }
    }
    return null;
  }

  private ConsumerSpan accepted() {
    ConsumerSpan first = null;
    for (ConsumerSpan d : deliveries) {
      if (d.share().accepted()
          && (first == null || d.share().deliveryCount() < first.share().deliveryCount())) {
        first = d;
      }
    }
    return first;
  }
}
