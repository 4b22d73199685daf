package dev.klat.it.bench;

import java.lang.management.ManagementFactory;

/**
 * Runs Kafka's own {@code ProducerPerformance} in this JVM, then prints the JVM's CPU time, so that
 * the benchmark can report CPU per record alongside the tool's throughput and latency.
 */
public final class PerfMain {

  private PerfMain() {}

  public static void main(String[] args) throws Exception {
    org.apache.kafka.tools.ProducerPerformance.main(args);
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    System.out.println("CPU_NANOS=" + os.getProcessCpuTime());
    System.out.println("UPTIME_MILLIS=" + ManagementFactory.getRuntimeMXBean().getUptime());
  }
}
