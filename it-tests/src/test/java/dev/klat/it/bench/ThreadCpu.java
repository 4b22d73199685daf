package dev.klat.it.bench;

/**
 * A run's CPU in nanoseconds per record, by the kind of thread that spent it: the application's
 * (the tool's {@code main}), kafka-clients' own (the producer's network thread, the consumer's
 * heartbeat and background threads), klat's (its exporter), the JIT compiler threads, the garbage
 * collector's threads, and the rest: the JVM's other threads (which {@code ThreadMXBean} does not
 * list), the JDK's helper threads and the benchmark's own sampler. A Java thread's CPU includes
 * what it spent before {@code main} (the agent's {@code premain} runs on {@code main}).
 */
record ThreadCpu(
    double applicationNanos,
    double kafkaClientNanos,
    double klatNanos,
    double jitNanos,
    double gcNanos,
    double restNanos) {

  /**
   * From {@link PerfMain}'s {@code THREAD_CPU_NANOS kind=nanos} lines, where the kind is the thread
   * name up to its first digit, dash or space, and its {@code GC_CPU_NANOS} line.
   */
  static ThreadCpu parse(String output, long records, long totalCpuNanos, long jitCpuNanos) {
    return parse(output, "", records, totalCpuNanos, jitCpuNanos);
  }

  /** The same from the lines whose keys start with {@code keyPrefix} ({@link WarmWindow}'s). */
  static ThreadCpu parse(
      String output, String keyPrefix, long records, long totalCpuNanos, long jitCpuNanos) {
    String threadPrefix = keyPrefix + "THREAD_CPU_NANOS ";
    String gcPrefix = keyPrefix + "GC_CPU_NANOS=";
    long gc = 0;
    long application = 0;
    long kafkaClient = 0;
    long klat = 0;
    for (String line : output.split("\n")) {
      if (line.startsWith(gcPrefix)) {
        gc = Long.parseLong(line.substring(gcPrefix.length()).trim());
        continue;
      }
      int equals = line.lastIndexOf('=');
      if (!line.startsWith(threadPrefix) || equals < threadPrefix.length()) {
        continue;
      }
      String kind = line.substring(threadPrefix.length(), equals);
      long nanos = Long.parseLong(line.substring(equals + 1).trim());
      if (kind.equals("main")) {
        application += nanos;
      } else if (kind.equals("kafka") || kind.startsWith("consumer_background")) {
        kafkaClient += nanos;
      } else if (kind.equals("klat")) {
        klat += nanos;
      }
    }
    long rest = totalCpuNanos - jitCpuNanos - gc - application - kafkaClient - klat;
    double perRecord = Math.max(1, records);
    return new ThreadCpu(
        application / perRecord,
        kafkaClient / perRecord,
        klat / perRecord,
        jitCpuNanos / perRecord,
        gc / perRecord,
        rest / perRecord);
  }
}
