package dev.klat.collector.correlate.join;

/**
 * What a producer span says about the transaction its record was sent in (section 9 of the latency
 * model): whether it was sent in one ({@code klat.producer.transactional}), and {@code C}, when the
 * producer's {@code commitTransaction()} returned ({@code klat.txn_commit.time_unix_nano}), on the
 * producer host's clock (epoch nanoseconds).
 *
 * @param transactional whether the record was sent in a transaction
 * @param commitNanos {@code C}, or {@link Long#MIN_VALUE} when unknown (not transactional, an agent
 *     that does not report it, or a span exported before the commit)
 */
public record ProducerTransaction(boolean transactional, long commitNanos) {

  /** A record sent outside a transaction, or an agent that does not say. */
  public static final ProducerTransaction NONE = new ProducerTransaction(false, Long.MIN_VALUE);

  /** Whether {@code C} is known. */
  public boolean hasCommit() {
    return commitNanos != Long.MIN_VALUE;
  }
}
