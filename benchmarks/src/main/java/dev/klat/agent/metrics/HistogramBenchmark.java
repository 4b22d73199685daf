package dev.klat.agent.metrics;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link LatencyHistogram}: one duration at a time, and a batch of 500 durations that end at the
 * same instant, as the producer's completion hook records them (reported per duration).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HistogramBenchmark {

  private static final int BATCH = 500;

  private final LatencyHistogram histogram = new LatencyHistogram();
  private final long[] startNanos = new long[BATCH];
  private long[] durations;
  private int next;

  @Setup
  public void setUp() {
    // Durations from 50 us to about 200 ms, so that the bucket index varies as in real traffic.
    durations = new long[1024];
    long x = 12345;
    for (int i = 0; i < durations.length; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      durations[i] = 50_000L + ((x >>> 1) % 200_000_000L);
    }
    long end = 1_000_000_000_000L;
    for (int i = 0; i < BATCH; i++) {
      startNanos[i] = end - durations[i];
    }
  }

  @Benchmark
  public void recordNanos() {
    histogram.recordNanos(durations[next++ & 1023]);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int recordAllPerDuration() {
    return histogram.recordAll(1_000_000_000_000L, startNanos, 0, BATCH);
  }
}
