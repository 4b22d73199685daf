package dev.klat.collector.scale.join;

/**
 * The metadata a join member commits with a span partition's offset: the offset below which every
 * span had been read and every join it completed had been counted ({@code E}). The committed offset
 * itself lies further back, at the oldest span the member still held for a partner, so whoever
 * reads the partition next reads those spans again; a join that such a reader completes with a span
 * below {@code E} was counted already, and is not counted twice.
 */
final class ReplayMarker {
  private static final String PREFIX = "klat.joined-below=";

  private ReplayMarker() {}

  static String format(long joinedBelowOffset) {
    return PREFIX + joinedBelowOffset;
  }

  /** The offset a commit's metadata names, or -1 when it names none (not a join member's). */
  static long parse(String metadata) {
    if (metadata == null || !metadata.startsWith(PREFIX)) {
      return -1;
    }
    try {
      return Long.parseLong(metadata.substring(PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
