package dev.klat.agent.producer;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The sampling decision of a record without an upstream trace, as {@code ProducerHooks.maybeSample}
 * makes it: a random draw against {@code klat.sampling.probability}, then, for a record that won
 * it, the per-producer rate limiter. The clock advances 1 µs per record (a producer at 1,000,000
 * records per second) instead of being read, since the hook reuses the S it has already taken;
 * {@link #nanoTime()} is that read, for scale.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SamplingBenchmark {

  /** "default": probability 0.01, at most 100 per second; "every-record": 1 and no cap. */
  @Param({"default", "every-record"})
  public String sampling;

  private double probability;
  private SampleRateLimiter limiter;
  private long nowNanos;

  @Setup
  public void setUp() {
    boolean every = sampling.equals("every-record");
    probability = every ? 1.0 : 0.01;
    limiter = new SampleRateLimiter(every ? 1e12 : 100, 0L);
  }

  @Benchmark
  public boolean decide() {
    long now = nowNanos += 1000;
    return ThreadLocalRandom.current().nextDouble() < probability && limiter.tryAcquire(now);
  }

  @Benchmark
  public long nanoTime() {
    return System.nanoTime();
  }
}
