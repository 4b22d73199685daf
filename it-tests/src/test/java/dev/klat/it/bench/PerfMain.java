package dev.klat.it.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs Kafka's own {@code ProducerPerformance} (or the tool named by {@code -Dbench.tool}) in this
 * JVM, then prints CPU time: the whole process, the part spent before {@code main} (JVM and agent
 * start-up), the JIT compiler threads' (a one-off cost: compiling the hot code once), the garbage
 * collector's threads', and per Java thread, so that the benchmark can tell per-record cost from
 * one-off cost and the application thread from the producer's network thread.
 *
 * <p>It also prints the bytes the process's Java threads allocated on the heap ({@code
 * ALLOCATED_BYTES}), from the JVM's own per-thread counters ({@code
 * com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), sampled with the CPU times and once
 * more at the end, the last value of each thread kept. Those are the counters JFR's {@code
 * jdk.ThreadAllocationStatistics} event reads; reading them here costs no recording and no parsing,
 * and works the same on every JDK. A thread that ends between two samples loses at most its last 50
 * ms of allocation. {@code ALLOCATED_BYTES_BEFORE_MAIN} is what the threads alive when {@code main}
 * starts had allocated by then (JVM and agent start-up).
 *
 * <p>{@link WarmWindow} prints the same for the second half of the run's records ({@code WARM_}
 * lines): the cost once the hot code is compiled.
 *
 * <p>With {@code -Dbench.attach.agent=JAR}, it loads kafka-clients' instrumented classes and then
 * attaches the agent to itself before the tool runs, as {@code klat attach} does to a running
 * application: the agent's cost after a runtime attach (its start-up counted after {@code main}).
 */
public final class PerfMain {

  private PerfMain() {}

  public static void main(String[] args) throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpuAtMainNanos = os.getProcessCpuTime();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> allocatedAtMain = new ConcurrentHashMap<>();
    sampleAllocated(threads, allocatedAtMain);
    // Threads end before the tool returns (the producer closes its network thread), so their CPU
    // time is sampled while they live and the last sample kept.
    Map<Long, Long> lastCpuByThread = new ConcurrentHashMap<>();
    Map<Long, Long> lastAllocatedByThread = new ConcurrentHashMap<>();
    // A thread's kind is looked up once: the sampler runs beside what it measures, 20 times a
    // second, so it asks the JVM for a thread's name only when it first sees the thread.
    Map<Long, String> kindByThread = new ConcurrentHashMap<>();
    JvmThreadsCpu jvmThreads = new JvmThreadsCpu();
    WarmWindow warm = new WarmWindow();
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                for (long id : threads.getAllThreadIds()) {
                  if (!kindByThread.containsKey(id)) {
                    ThreadInfo info = threads.getThreadInfo(id);
                    if (info == null) {
                      continue;
                    }
                    kindByThread.put(id, threadKind(info.getThreadName()));
                  }
                  long cpu = threads.getThreadCpuTime(id);
                  if (cpu > 0) {
                    lastCpuByThread.put(id, cpu);
                  }
                }
                sampleAllocated(threads, lastAllocatedByThread);
                jvmThreads.sample();
                warm.sample(
                    os.getProcessCpuTime(),
                    jvmThreads.totalNanos(JvmThreadsCpu.Kind.JIT),
                    jvmThreads.totalNanos(JvmThreadsCpu.Kind.GC),
                    byKind(lastCpuByThread, kindByThread));
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "cpu-sampler");
    sampler.setDaemon(true);
    sampler.start();

    String attachAgent = System.getProperty("bench.attach.agent", "");
    if (!attachAgent.isEmpty()) {
      SelfAttach.afterLoadingKafkaClients(attachAgent);
    }
    // By name: kafka-tools is on the forked JVM's class path only, not on the tests'.
    Class.forName(System.getProperty("bench.tool", "org.apache.kafka.tools.ProducerPerformance"))
        .getMethod("main", String[].class)
        .invoke(null, (Object) args);

    sampler.interrupt();
    sampler.join();
    sampleAllocated(threads, lastAllocatedByThread);
    jvmThreads.sample();
    System.out.println(
        "ALLOCATED_BYTES="
            + lastAllocatedByThread.values().stream().mapToLong(Long::longValue).sum());
    // What the threads alive when main started had allocated by then: JVM and agent start-up.
    System.out.println(
        "ALLOCATED_BYTES_BEFORE_MAIN="
            + allocatedAtMain.values().stream().mapToLong(Long::longValue).sum());
    System.out.println("CPU_NANOS=" + os.getProcessCpuTime());
    System.out.println("CPU_BEFORE_MAIN_NANOS=" + cpuAtMainNanos);
    System.out.println("JIT_CPU_NANOS=" + jvmThreads.totalNanos(JvmThreadsCpu.Kind.JIT));
    System.out.println("GC_CPU_NANOS=" + jvmThreads.totalNanos(JvmThreadsCpu.Kind.GC));
    byKind(lastCpuByThread, kindByThread)
        .forEach((kind, cpu) -> System.out.println("THREAD_CPU_NANOS " + kind + "=" + cpu));
    byKind(lastAllocatedByThread, kindByThread)
        .forEach(
            (kind, bytes) -> System.out.println("THREAD_ALLOCATED_BYTES " + kind + "=" + bytes));
    System.out.println("UPTIME_MILLIS=" + ManagementFactory.getRuntimeMXBean().getUptime());
    System.out.print(warm.report());
  }

  private static Map<String, Long> byKind(Map<Long, Long> byThread, Map<Long, String> kinds) {
    Map<String, Long> byKind = new TreeMap<>();
    byThread.forEach(
        (id, value) -> byKind.merge(kinds.getOrDefault(id, "unnamed"), value, Long::sum));
    return byKind;
  }

  // A thread's name without its number: "kafka-producer-network-thread | perf-producer-client"
  // and "kafka-producer-network-thread | other" are one kind.
  private static String threadKind(String name) {
    return name.replaceAll("[#\\d| -]+.*$", "");
  }

  private static void sampleAllocated(ThreadMXBean threads, Map<Long, Long> lastByThread) {
    if (!(threads instanceof com.sun.management.ThreadMXBean)) {
      return;
    }
    com.sun.management.ThreadMXBean counters = (com.sun.management.ThreadMXBean) threads;
    for (long id : threads.getAllThreadIds()) {
      long allocated = counters.getThreadAllocatedBytes(id);
      if (allocated > 0) {
        lastByThread.put(id, allocated);
      }
    }
  }
}
