package dev.klat.probe.telemetry;

/**
 * The client telemetry forwarder's counters as the broker's JMX shows them, under {@code
 * dev.klat:type=ClientTelemetryForwarder}: every push the broker handed over ends in exactly one of
 * forwarded or a dropped reason.
 */
public interface ForwarderCountersMBean {

  /** Pushes the broker handed to the forwarder. */
  long getReceived();

  /** Pushes the collector accepted. */
  long getForwarded();

  /** Pushes refused because the queue was full (count or bytes). */
  long getDroppedQueueFull();

  /** Pushes whose payload was not MetricsData (or a compression of it) within the bounds. */
  long getDroppedMalformed();

  /** Pushes with no metrics in them. */
  long getDroppedEmpty();

  /** Pushes the collector did not take (down, slow, refused) or that came while sending paused. */
  long getDroppedUnsent();

  /** Pushes lost to an unexpected error in the forwarder (a bug: the broker is not affected). */
  long getDroppedError();

  /** Pushes waiting in the queue now. */
  int getQueued();
}
