package dev.klat.it.bench;

import java.lang.management.ManagementFactory;

/**
 * Runs Kafka's own {@code ProducerPerformance} in this JVM, then prints the JVM's CPU time, so that
 * the benchmark can report CPU per record alongside the tool's throughput and latency.
 */
public final class PerfMain {

  private PerfMain() {}

  public static void main(String[] args) throws Exception {
    // By name: kafka-tools is on the forked JVM's class path only, not on the tests'.
    Class.forName("org.apache.kafka.tools.ProducerPerformance")
        .getMethod("main", String[].class)
        .invoke(null, (Object) args);
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    System.out.println("CPU_NANOS=" + os.getProcessCpuTime());
    System.out.println("UPTIME_MILLIS=" + ManagementFactory.getRuntimeMXBean().getUptime());
  }
}
