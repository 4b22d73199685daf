package dev.klat.it.bench;

import static dev.klat.it.bench.BenchSuite.median;
import static dev.klat.it.bench.BenchSuite.of;

import dev.klat.it.bench.BenchSuite.Load;
import dev.klat.it.bench.BenchSuite.Run;
import dev.klat.it.bench.BenchSuite.Variant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Issue 24's targets at klat's defaults, against no agent in the same rounds: throughput, CPU per
 * record (all of it, and steady), and start-up, each said met or behind.
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
                + " steady CPU per record (without JIT) | |%n"
                + "|---|---|---|---|---|---|---|%n",
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
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f%% | %s | %+.1f%% | %s | %+.1f%% | %s |%n",
              load.label(),
              100 * throughput,
              Double.isNaN(throughput) ? "?" : throughput >= THROUGHPUT_TARGET ? "met" : "behind",
              100 * cpu,
              Double.isNaN(cpu) ? "?" : cpu <= CPU_TARGET ? "met" : "behind",
              100 * steady,
              Double.isNaN(steady) ? "?" : steady <= CPU_TARGET ? "met" : "behind"));
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
}
