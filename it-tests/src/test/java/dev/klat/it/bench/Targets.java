package dev.klat.it.bench;

import static dev.klat.it.bench.BenchSuite.median;
import static dev.klat.it.bench.BenchSuite.of;

import dev.klat.it.bench.BenchSuite.Load;
import dev.klat.it.bench.BenchSuite.Run;
import dev.klat.it.bench.BenchSuite.Variant;
import dev.klat.it.bench.BenchSuite.Warm;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Issue 24's targets at klat's defaults, against no agent in the same rounds: throughput, CPU per
 * record (all of it, and steady), the same over the second half of each run (warm), and start-up,
 * each said met or behind.
 */
final class Targets {

  private Targets() {}

  // At least 97% of the no-agent throughput, at most 3% more CPU per record.
  private static final double THROUGHPUT_TARGET = 0.97;

  private static final double CPU_TARGET = 0.03;

  static String table(
      List<Variant> variants,
      List<Load> loads,
      List<Run> runs,
      Map<Variant, List<Long>> startupMillis) {
    if (!variants.contains(Variant.NONE) || !variants.contains(Variant.KLAT)) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    out.append("\n## Targets: klat (defaults) against no agent, same rounds\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "| load | throughput (target >= %.0f%%) | | CPU per record (target <= +%.0f%%) | |"
                + " steady CPU per record (without JIT) | | warm throughput (second half) | |"
                + " warm CPU per record | |%n"
                + "|---|---|---|---|---|---|---|---|---|---|---|%n",
            100 * THROUGHPUT_TARGET,
            100 * CPU_TARGET));
    for (Load load : loads) {
      double throughput =
          median(of(runs, Variant.KLAT, load), Run::recordsPerSecond)
              / median(of(runs, Variant.NONE, load), Run::recordsPerSecond);
      double cpu =
          median(of(runs, Variant.KLAT, load), Run::cpuNanosPerRecord)
                  / median(of(runs, Variant.NONE, load), Run::cpuNanosPerRecord)
              - 1;
      double steady =
          median(of(runs, Variant.KLAT, load), Run::cpuSteadyNanosPerRecord)
                  / median(of(runs, Variant.NONE, load), Run::cpuSteadyNanosPerRecord)
              - 1;
      double warmThroughput =
          warmMedian(runs, Variant.KLAT, load, Warm::recordsPerSecond)
              / warmMedian(runs, Variant.NONE, load, Warm::recordsPerSecond);
      double warmCpu =
          warmMedian(runs, Variant.KLAT, load, Warm::cpuNanosPerRecord)
                  / warmMedian(runs, Variant.NONE, load, Warm::cpuNanosPerRecord)
              - 1;
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f%% | %s | %+.1f%% | %s | %+.1f%% | %s | %.1f%% | %s | %+.1f%% | %s |%n",
              load.label(),
              100 * throughput,
              throughputVerdict(throughput),
              100 * cpu,
              cpuVerdict(cpu),
              100 * steady,
              cpuVerdict(steady),
              100 * warmThroughput,
              throughputVerdict(warmThroughput),
              100 * warmCpu,
              cpuVerdict(warmCpu)));
    }
    double added =
        median(
                startupMillis.getOrDefault(Variant.KLAT, List.of()).stream()
                    .map(Long::doubleValue)
                    .collect(Collectors.toList()))
            - median(
                startupMillis.getOrDefault(Variant.NONE, List.of()).stream()
                    .map(Long::doubleValue)
                    .collect(Collectors.toList()));
    if (Double.isNaN(added)) {
      out.append(
          String.format(Locale.ROOT, "%nStart-up added by klat: not measured in this run.%n"));
    } else {
      out.append(
          String.format(
              Locale.ROOT,
              "%nStart-up added by klat: %+.0f ms (target <= 300 ms): %s.%n",
              added,
              added <= 300 ? "met" : "behind"));
    }
    return out.toString();
  }

  private static String throughputVerdict(double ratio) {
    return Double.isNaN(ratio) ? "?" : ratio >= THROUGHPUT_TARGET ? "met" : "behind";
  }

  private static String cpuVerdict(double added) {
    return Double.isNaN(added) ? "?" : added <= CPU_TARGET ? "met" : "behind";
  }

  /** The median over the runs that measured their warm window; NaN when none did. */
  private static double warmMedian(
      List<Run> runs, Variant variant, Load load, ToDoubleFunction<Warm> field) {
    return median(
        of(runs, variant, load).stream()
            .filter(run -> run.warm() != null)
            .map(run -> field.applyAsDouble(run.warm()))
            .collect(Collectors.toList()));
  }
}
