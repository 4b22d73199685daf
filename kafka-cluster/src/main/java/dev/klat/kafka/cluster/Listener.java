package dev.klat.kafka.cluster;

/** The listeners every broker has. */
public enum Listener {
  /** Where producers, consumers and admin clients connect. */
  CLIENT,
  /**
   * A second listener for clients, so that a test can send some clients (a producer) through a
   * proxy, by advertising this listener there, while the others keep connecting directly on {@link
   * #CLIENT}. A client stays on the listener it bootstrapped from.
   */
  SECOND_CLIENT,
  /** Where followers fetch from leaders (the inter-broker listener). */
  REPLICATION,
  /** The KRaft controller quorum. */
  CONTROLLER
}
