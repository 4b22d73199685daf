package dev.klat.kafka.cluster;

/** The listeners every broker has. */
public enum Listener {
  /** Where producers, consumers and admin clients connect. */
  CLIENT,
  /** Where followers fetch from leaders (the inter-broker listener). */
  REPLICATION,
  /** The KRaft controller quorum. */
  CONTROLLER
}
