package dev.klat.agent.consumer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@link LinkBenchmark}'s three loops in interleaved rounds on one thread, timed by the thread's
 * CPU time, which a machine busy with other work disturbs less than the wall clock JMH reads: per
 * round, each loop iterates the 500 records many times; the report is each loop's median per record
 * over the rounds and the medians of the paired differences against the baseline.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.klat.agent.consumer.LinkRounds [rounds]}
 */
public final class LinkRounds {

  private static final int ITERATIONS_PER_ROUND = 20_000;

  private LinkRounds() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    LinkBenchmark benchmark = new LinkBenchmark();
    benchmark.setUp();
    Blackhole blackhole =
        new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is"
                + " dangerous.");
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[][] perRecord = new double[3][rounds];
    // Warm-up: the same loops, untimed.
    for (int i = 0; i < 6; i++) {
      round(benchmark, blackhole, threads, i, new double[3]);
    }
    for (int r = 0; r < rounds; r++) {
      double[] nanos = new double[3];
      round(benchmark, blackhole, threads, r, nanos);
      for (int k = 0; k < 3; k++) {
        perRecord[k][r] = nanos[k];
      }
    }
    benchmark.tearDown();
    String[] names = {"iterate", "hooked, no sampled record", "hooked, one sampled record"};
    for (int k = 0; k < 3; k++) {
      System.out.printf(
          "%-28s %.2f ns a record (median of %d rounds)%n", names[k], median(perRecord[k]), rounds);
    }
    for (int k = 1; k < 3; k++) {
      double[] diff = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        diff[r] = perRecord[k][r] - perRecord[0][r];
      }
      System.out.printf(
          "%-28s %+.2f ns a record over iterate (median of paired differences; quartiles %+.2f, %+.2f)%n",
          names[k], median(diff), quantile(diff, 0.25), quantile(diff, 0.75));
    }
  }

  private static void round(
      LinkBenchmark benchmark,
      Blackhole blackhole,
      ThreadMXBean threads,
      int round,
      double[] nanosPerRecord) {
    // The three loops in an order rotating by round, so that none always runs first.
    for (int j = 0; j < 3; j++) {
      int k = (j + round) % 3;
      long start = threads.getCurrentThreadCpuTime();
      for (int i = 0; i < ITERATIONS_PER_ROUND; i++) {
        if (k == 0) {
          benchmark.iterate(blackhole);
        } else if (k == 1) {
          benchmark.iterateHookedNoSampledRecord(blackhole);
        } else {
          benchmark.iterateHookedOneSampledRecord(blackhole);
        }
      }
      long cpuNanos = threads.getCurrentThreadCpuTime() - start;
      nanosPerRecord[k] = (double) cpuNanos / ITERATIONS_PER_ROUND / 500;
    }
  }

  private static double median(double[] values) {
    return quantile(values, 0.5);
  }

  private static double quantile(double[] values, double q) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.round(q * (sorted.length - 1))];
  }
}
