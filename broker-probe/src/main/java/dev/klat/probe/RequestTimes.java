package dev.klat.probe;

import dev.klat.model.BrokerProbeWire;

/**
 * An append's request times in one {@code long}, so that an append event stays one slot of
 * primitives in the {@link EventRing}: the request queue time in the high 32 bits and the time from
 * the queue to the append in the low 32, both in microseconds (up to about 71 minutes; longer reads
 * as the most), with all bits set for unknown.
 */
final class RequestTimes {

  /** Neither time is known: the append was not made on a request thread. */
  static final long UNKNOWN = -1L;

  private static final long MOST_MICROS = 0xFFFF_FFFEL;
  private static final long UNKNOWN_HALF = 0xFFFF_FFFFL;

  private RequestTimes() {}

  static long pack(long queueMicros, long localMicros) {
    return (half(queueMicros) << 32) | half(localMicros);
  }

  /** The request queue time, or {@link BrokerProbeWire#UNKNOWN_MICROS}. */
  static long queueMicros(long packed) {
    return unhalf(packed >>> 32);
  }

  /** The time from the queue to the append, or {@link BrokerProbeWire#UNKNOWN_MICROS}. */
  static long localMicros(long packed) {
    return unhalf(packed & UNKNOWN_HALF);
  }

  private static long half(long micros) {
    return micros < 0 ? UNKNOWN_HALF : Math.min(micros, MOST_MICROS);
  }

  private static long unhalf(long half) {
    return half == UNKNOWN_HALF ? BrokerProbeWire.UNKNOWN_MICROS : half;
  }
}
