package dev.klat.collector.correlate.join;

/** The join's limits that tests of other packages wait out. */
public final class JoinLimits {
  /** How long a joined record waits for its broker data: {@link BrokerDataWaits#MAX_WAIT_NANOS}. */
  public static final long MAX_BROKER_DATA_WAIT_NANOS = BrokerDataWaits.MAX_WAIT_NANOS;

  private JoinLimits() {}
}
