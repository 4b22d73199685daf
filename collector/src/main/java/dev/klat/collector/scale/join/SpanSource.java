package dev.klat.collector.scale.join;

/**
 * A span's place in the span topic, packed into the {@code long} the correlator hands back with
 * each breakdown: the partition in the top 15 bits, the offset in the low 48 (Kafka offsets stay
 * far below 2^48; a topic has far fewer than 32,768 partitions).
 */
final class SpanSource {
  private static final int OFFSET_BITS = 48;
  private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;

  private SpanSource() {}

  static long of(int partition, long offset) {
    return ((long) partition << OFFSET_BITS) | (offset & OFFSET_MASK);
  }

  static int partition(long source) {
    return (int) (source >>> OFFSET_BITS);
  }

  static long offset(long source) {
    return source & OFFSET_MASK;
  }
}
