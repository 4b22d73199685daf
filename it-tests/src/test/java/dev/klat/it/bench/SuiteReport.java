package dev.klat.it.bench;

import static dev.klat.it.bench.BenchSuite.median;
import static dev.klat.it.bench.BenchSuite.of;

import dev.klat.it.bench.BenchSuite.Load;
import dev.klat.it.bench.BenchSuite.Run;
import dev.klat.it.bench.BenchSuite.Variant;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The benchmark suite's report: {@code suite.md} (the settings, a table per load with medians over
 * the rounds and the change against the first variant, start-up, the targets, where the CPU went,
 * the failures) and {@code suite-runs.csv} (one line per run). {@link BenchSuite} runs, this
 * writes; the JMH, collector and broker-probe sections come from their own runners.
 */
final class SuiteReport {

  private SuiteReport() {}

  /** The report's opening paragraph: when, how much, and on what machine and JDK. */
  static String settings(
      String started,
      boolean quick,
      int rounds,
      long records,
      int startupRuns,
      boolean warmup,
      double loadAtStart) {
    return String.format(
        Locale.ROOT,
        "Started %s, finished %s. %s%d round(s); %,d records per run of 100-byte records (the"
            + " same bytes for bigger records); %d start-up run(s) per variant; warm-up %s."
            + " OpenTelemetry Java agent %s. Machine: %s, %d processors, %.1f GiB memory, %s"
            + " %s, JDK %s; load average %.2f at the start, %.2f at the end.",
        started,
        Instant.now(),
        quick ? "QUICK SMOKE RUN, figures meaningless. " : "",
        rounds,
        records,
        startupRuns,
        warmup ? "on" : "off",
        System.getProperty("klat.otel.agent.version", "?"),
        cpuModel(),
        Runtime.getRuntime().availableProcessors(),
        totalMemoryBytes() / (1024.0 * 1024 * 1024),
        System.getProperty("os.name"),
        System.getProperty("os.arch"),
        System.getProperty("java.version"),
        loadAtStart,
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  private static String cpuModel() {
    try (Stream<String> lines = Files.lines(Paths.get("/proc/cpuinfo"))) {
      return lines
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown CPU");
    } catch (IOException | RuntimeException e) {
      return "unknown CPU";
    }
  }

  private static long totalMemoryBytes() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize()
        : 0L;
  }

  static String markdown(
      String settings,
      List<Variant> variants,
      List<Load> loads,
      List<Run> runs,
      Map<Variant, List<Long>> startupMillis,
      List<String> failures) {
    StringBuilder out = new StringBuilder();
    out.append("# klat benchmark suite\n\n").append(settings).append("\n\n");
    out.append(
        "Throughput is the tool's own (producer: records/s; consumer: `fetch.nMsg.sec`, after the"
            + " group joined); p50/p99 are `ProducerPerformance`'s latencies; CPU and allocation"
            + " are the forked JVM's totals (all threads, start-up included) over the records;"
            + " \"after main\" leaves out the CPU spent before `main` (JVM and agent start-up);"
            + " \"steady\" leaves out the JIT compiler threads too (compiling the hot code once)."
            + " Medians over the rounds; \"vs base\" compares with the median of ");
    Variant base = variants.isEmpty() ? null : variants.get(0);
    out.append(base == null ? "nothing" : base.label).append(" in the same load.\n");
    for (Load load : loads) {
      out.append("\n## ").append(load.label()).append("\n\n");
      out.append(
          "| variant | runs | throughput median (rec/s) | range | vs base | p50 ms | p99 ms | CPU ns/record | vs base | CPU after main ns/record | vs base"
              + " | CPU steady ns/record | vs base"
              + " | alloc B/record | alloc after main B/record | vs base | CPU before main ms"
              + " | JIT CPU ms |\n");
      out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
      List<Run> baseRuns = of(runs, base, load);
      double baseThroughput = median(baseRuns, Run::recordsPerSecond);
      double baseCpu = median(baseRuns, Run::cpuNanosPerRecord);
      double baseAlloc = median(baseRuns, Run::allocatedAfterMainBytesPerRecord);
      double baseAfterMain = median(baseRuns, Run::cpuAfterMainNanosPerRecord);
      double baseSteady = median(baseRuns, Run::cpuSteadyNanosPerRecord);
      for (Variant variant : variants) {
        List<Run> list = of(runs, variant, load);
        if (list.isEmpty()) {
          out.append("| ").append(variant.label).append(" | 0 | failed |||||||||\n");
          continue;
        }
        double throughput = median(list, Run::recordsPerSecond);
        double cpu = median(list, Run::cpuNanosPerRecord);
        double allocTotal = median(list, Run::allocatedBytesPerRecord);
        double alloc = median(list, Run::allocatedAfterMainBytesPerRecord);
        double afterMain = median(list, Run::cpuAfterMainNanosPerRecord);
        double steady = median(list, Run::cpuSteadyNanosPerRecord);
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %,.0f | %,.0f – %,.0f | %s | %s | %s | %,.0f | %s | %,.0f | %s | %,.0f"
                    + " | %s | %,.0f | %,.0f | %s | %.0f | %.0f |%n",
                variant.label,
                list.size(),
                throughput,
                list.stream().mapToDouble(Run::recordsPerSecond).min().orElse(0),
                list.stream().mapToDouble(Run::recordsPerSecond).max().orElse(0),
                percent(throughput, baseThroughput),
                millis(median(list, Run::p50Millis)),
                millis(median(list, Run::p99Millis)),
                cpu,
                change(cpu, baseCpu),
                afterMain,
                change(afterMain, baseAfterMain),
                steady,
                change(steady, baseSteady),
                allocTotal,
                alloc,
                change(alloc, baseAlloc),
                median(list, Run::cpuBeforeMainMillis),
                median(list, Run::jitCpuMillis)));
      }
    }
    if (!startupMillis.isEmpty()) {
      out.append("\n## JVM start-up\n\n");
      out.append(
          "Wall time of a JVM that creates and closes one producer (`StartupMain`), median over the"
              + " runs.\n\n");
      out.append("| variant | runs | start-up ms (median) | added ms |\n|---|---|---|---|\n");
      double baseStartup =
          median(
              startupMillis.getOrDefault(base, List.of()).stream()
                  .map(Long::doubleValue)
                  .collect(Collectors.toList()));
      for (Variant variant : variants) {
        List<Long> list = startupMillis.getOrDefault(variant, List.of());
        double startup = median(list.stream().map(Long::doubleValue).collect(Collectors.toList()));
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %.0f | %+.0f |%n",
                variant.label,
                list.size(),
                startup,
                startup - baseStartup));
      }
    }
    out.append(Targets.table(variants, loads, runs, startupMillis));
    out.append(CpuBreakdown.table(variants, loads, runs));
    if (!failures.isEmpty()) {
      out.append("\n## Failures\n\n");
      failures.forEach(f -> out.append("- ").append(f.replace("\n", " / ")).append('\n'));
    }
    return out.toString();
  }

  private static String percent(double value, double base) {
    return Double.isNaN(base) || base == 0
        ? "—"
        : String.format(Locale.ROOT, "%.1f%%", 100 * value / base);
  }

  private static String change(double value, double base) {
    return Double.isNaN(base) || base == 0
        ? "—"
        : String.format(Locale.ROOT, "%+.1f%%", 100 * (value - base) / base);
  }

  private static String millis(double value) {
    return Double.isNaN(value) ? "—" : String.format(Locale.ROOT, "%.0f", value);
  }

  static String csv(List<Run> runs) {
    StringBuilder out =
        new StringBuilder(
            "variant,load,round,records,records_per_second,p50_ms,p99_ms,cpu_ns_per_record,"
                + "cpu_after_main_ns_per_record,allocated_bytes_per_record,allocated_after_main_bytes_per_record,cpu_before_main_ms,"
                + "jit_cpu_ms,cpu_steady_ns_per_record,application_threads_ns_per_record,"
                + "kafka_client_threads_ns_per_record,klat_threads_ns_per_record,"
                + "gc_threads_ns_per_record,rest_ns_per_record,warm_records_per_second,"
                + "warm_cpu_ns_per_record,warm_jit_ns_per_record,warm_application_threads_ns_per_record,"
                + "warm_kafka_client_threads_ns_per_record,warm_gc_threads_ns_per_record\n");
    for (Run r : runs) {
      out.append(
          String.format(
              Locale.ROOT,
              "%s,\"%s\",%d,%d,%.1f,%s,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,"
                  + "%.1f,%.1f,%.1f,%.1f,%.1f,%.1f%n",
              r.variant().id,
              r.load().label(),
              r.round() + 1,
              r.records(),
              r.recordsPerSecond(),
              Double.isNaN(r.p50Millis()) ? "" : Double.toString(r.p50Millis()),
              Double.isNaN(r.p99Millis()) ? "" : Double.toString(r.p99Millis()),
              r.cpuNanosPerRecord(),
              r.cpuAfterMainNanosPerRecord(),
              r.allocatedBytesPerRecord(),
              r.allocatedAfterMainBytesPerRecord(),
              r.cpuBeforeMainMillis(),
              r.jitCpuMillis(),
              r.cpuSteadyNanosPerRecord(),
              r.threads().applicationNanos(),
              r.threads().kafkaClientNanos(),
              r.threads().klatNanos(),
              r.threads().gcNanos(),
              r.threads().restNanos(),
              r.warm() == null ? Double.NaN : r.warm().recordsPerSecond(),
              r.warm() == null ? Double.NaN : r.warm().cpuNanosPerRecord(),
              r.warm() == null ? Double.NaN : r.warm().threads().jitNanos(),
              r.warm() == null ? Double.NaN : r.warm().threads().applicationNanos(),
              r.warm() == null ? Double.NaN : r.warm().threads().kafkaClientNanos(),
              r.warm() == null ? Double.NaN : r.warm().threads().gcNanos()));
    }
    return out.toString();
  }
}
