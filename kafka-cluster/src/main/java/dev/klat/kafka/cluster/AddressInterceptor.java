package dev.klat.kafka.cluster;

import java.net.InetSocketAddress;

/**
 * Chooses the address a broker advertises for a listener, so that a test can put something between
 * the broker and its peers (a delaying TCP proxy, for example) before the broker starts.
 */
@FunctionalInterface
public interface AddressInterceptor {

  /** Advertises every listener where it is bound. */
  AddressInterceptor NONE = (nodeId, listener, bound) -> bound;

  /**
   * Returns the address to advertise for this broker's listener.
   *
   * @param nodeId the broker's node id
   * @param listener {@link Listener#CLIENT}, {@link Listener#SECOND_CLIENT} or {@link
   *     Listener#REPLICATION} (the controller listener is never advertised)
   * @param bound where the broker listens
   */
  InetSocketAddress advertise(int nodeId, Listener listener, InetSocketAddress bound);
}
