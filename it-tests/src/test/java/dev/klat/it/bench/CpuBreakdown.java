package dev.klat.it.bench;

import dev.klat.it.bench.BenchSuite.Load;
import dev.klat.it.bench.BenchSuite.Run;
import dev.klat.it.bench.BenchSuite.Variant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Where klat's CPU goes in the benchmark's runs: per load and kind of thread, what a run with klat
 * at its defaults spent per record beyond the run without an agent of the same round (the two run
 * back to back), averaged over the rounds with a 95% interval. The hooks' own costs come from JMH;
 * this is what they add up to in a real client, where the JIT, the caches and the other threads
 * have their say.
 */
final class CpuBreakdown {

  private CpuBreakdown() {}

  private static List<Column> columns(
      String jitTitle, Function<Run, ThreadCpu> threads, ToDoubleFunction<Run> all) {
    return List.of(
        new Column("application threads", run -> threads.apply(run).applicationNanos()),
        new Column("kafka-clients threads", run -> threads.apply(run).kafkaClientNanos()),
        new Column("klat's threads", run -> threads.apply(run).klatNanos()),
        new Column(jitTitle, run -> threads.apply(run).jitNanos()),
        new Column("GC", run -> threads.apply(run).gcNanos()),
        new Column("the rest", run -> threads.apply(run).restNanos()),
        new Column("all", all));
  }

  static String table(List<Variant> variants, List<Load> loads, List<Run> runs) {
    if (!variants.contains(Variant.NONE) || !variants.contains(Variant.KLAT)) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    out.append("\n## Where klat's CPU goes: ns per record, klat (defaults) minus no agent\n\n");
    out.append(
        "Each round's klat run minus the same round's run without an agent, by the kind of thread"
            + " that spent the CPU; the mean over the rounds ± its 95% interval (1.96 standard"
            + " errors). Java threads include what they spent before `main` (klat's `premain`"
            + " runs on `main`); JIT and GC are the JVM's compiler and collector threads, read"
            + " from /proc; the rest is the process's CPU less all those (the JVM's other"
            + " threads, the JDK's helpers, the benchmark's own sampler).\n\n");
    rows(
        out,
        loads,
        runs,
        columns("JIT (once per JVM)", Run::threads, Run::cpuNanosPerRecord),
        run -> true);
    out.append("\n### The second half of each run's records (warm)\n\n");
    out.append(
        "The same over the second half of each run's records, counted by the client's own"
            + " metrics: what a long-running client pays once the JIT has compiled the hot"
            + " code.\n\n");
    rows(
        out,
        loads,
        runs,
        columns("JIT", run -> run.warm().threads(), run -> run.warm().cpuNanosPerRecord()),
        run -> run.warm() != null);
    return out.toString();
  }

  private static void rows(
      StringBuilder out,
      List<Load> loads,
      List<Run> runs,
      List<Column> columns,
      Predicate<Run> measured) {
    // The last column is the process's CPU, all threads: the baseline's is shown beside the load.
    ToDoubleFunction<Run> all = columns.get(columns.size() - 1).value;
    out.append("| load | pairs | no agent, all |");
    StringBuilder rule = new StringBuilder("|---|---|---|");
    for (Column column : columns) {
      out.append(' ').append(column.title).append(" |");
      rule.append("---|");
    }
    out.append('\n').append(rule).append('\n');
    for (Load load : loads) {
      List<Run[]> pairs = new ArrayList<>();
      for (Run[] pair : pairs(runs, load)) {
        if (measured.test(pair[0]) && measured.test(pair[1])) {
          pairs.add(pair);
        }
      }
      if (pairs.isEmpty()) {
        continue;
      }
      List<Double> baseline = new ArrayList<>();
      for (Run[] pair : pairs) {
        baseline.add(all.applyAsDouble(pair[0]));
      }
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %.0f |",
              load.label(),
              pairs.size(),
              PairedMean.of(baseline).mean()));
      for (Column column : columns) {
        List<Double> differences = new ArrayList<>();
        for (Run[] pair : pairs) {
          differences.add(
              column.value.applyAsDouble(pair[1]) - column.value.applyAsDouble(pair[0]));
        }
        out.append(' ').append(PairedMean.of(differences).format()).append(" |");
      }
      out.append('\n');
    }
  }

  /** The runs of one load as (no agent, klat) pairs of the same round, in round order. */
  static List<Run[]> pairs(List<Run> runs, Load load) {
    List<Run[]> pairs = new ArrayList<>();
    for (Run klat : BenchSuite.of(runs, Variant.KLAT, load)) {
      for (Run none : BenchSuite.of(runs, Variant.NONE, load)) {
        if (none.round() == klat.round()) {
          pairs.add(new Run[] {none, klat});
          break;
        }
      }
    }
    return pairs;
  }

  private record Column(String title, ToDoubleFunction<Run> value) {}

  /** A mean with the half-width of its 95% interval (NaN below two values). */
  record PairedMean(double mean, double halfWidth95) {

    static PairedMean of(List<Double> values) {
      int n = values.size();
      if (n == 0) {
        return new PairedMean(Double.NaN, Double.NaN);
      }
      double sum = 0;
      for (double v : values) {
        sum += v;
      }
      double mean = sum / n;
      if (n < 2) {
        return new PairedMean(mean, Double.NaN);
      }
      double squares = 0;
      for (double v : values) {
        squares += (v - mean) * (v - mean);
      }
      double standardDeviation = Math.sqrt(squares / (n - 1));
      return new PairedMean(mean, 1.96 * standardDeviation / Math.sqrt(n));
    }

    String format() {
      if (Double.isNaN(mean)) {
        return "—";
      }
      return Double.isNaN(halfWidth95)
          ? String.format(Locale.ROOT, "%+.0f", mean)
          : String.format(Locale.ROOT, "%+.0f ± %.0f", mean, halfWidth95);
    }
  }
}
