package dev.klat.agent.export;

/**
 * The partition number as the string attribute {@code messaging.destination.partition.id} wants it.
 * Every sampled record's span needs one, and {@code Integer.toString} per span was 5% of the CPU
 * samples of a producer sampling every record (JFR): the strings of the first {@value
 * #CACHED_PARTITIONS} partitions are made once.
 */
public final class PartitionIds {

  static final int CACHED_PARTITIONS = 1024;

  // Filled on first use; a race makes the same string twice, which is harmless (strings are
  // immutable and safely published).
  private static final String[] CACHE = new String[CACHED_PARTITIONS];

  private PartitionIds() {}

  /** {@code Integer.toString(partition)}, the same string instance for small partitions. */
  public static String of(int partition) {
    if (partition < 0 || partition >= CACHED_PARTITIONS) {
      return Integer.toString(partition);
    }
    String id = CACHE[partition];
    if (id == null) {
      id = Integer.toString(partition);
      CACHE[partition] = id;
    }
    return id;
  }
}
