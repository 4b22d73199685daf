package dev.klat.probe;

/**
 * The Kafka broker versions the probe's hooks were checked against: 3.6 to 4.4, each version's
 * {@code kafka.cluster.Partition} read (sources where Maven Central has them, {@code javap} of the
 * class otherwise) and, for 3.6.2 and 4.4.0, woven and verified by {@code PartitionWeavingTest}.
 */
final class BrokerVersions {

  static final String RANGE = "3.6 to 4.4";

  private BrokerVersions() {}

  /** Whether {@code version} (for example {@code 4.4.0} or {@code 3.9.2-SNAPSHOT}) is in range. */
  static boolean supported(String version) {
    if (version == null) {
      return false;
    }
    String[] parts = version.split("[.-]");
    if (parts.length < 2) {
      return false;
    }
    int major;
    int minor;
    try {
      major = Integer.parseInt(parts[0]);
      minor = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      return false;
    }
    return (major == 3 && minor >= 6) || (major == 4 && minor <= 4);
  }
}
