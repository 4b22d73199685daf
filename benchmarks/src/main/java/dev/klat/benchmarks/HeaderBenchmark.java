package dev.klat.benchmarks;

import dev.klat.agent.export.TraceIds;
import dev.klat.model.TimingHeader;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The headers a sampled record carries: {@code klat-timing} ({@link TimingHeader}) and the W3C
 * {@code traceparent}, encoded by the producer hook and decoded by the consumer hook.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeaderBenchmark {

  private final long sendEpochMicros = 1_800_000_000_000_000L;
  private final byte[] target = new byte[TimingHeader.MAX_LENGTH];
  private final byte[] timing = TimingHeader.encode(sendEpochMicros, 7L, true);
  private final TimingHeader.Decoded decoded = new TimingHeader.Decoded();
  private final byte[] traceparent = TraceIds.traceparentBytes(0x1234L, 0x5678L, 0x9abcL, true);
  private final long[] parsed = new long[4];

  /** As the producer hook does it: a new array per sampled record. */
  @Benchmark
  public byte[] timingEncodeNew() {
    return TimingHeader.encode(sendEpochMicros, 7L, true);
  }

  @Benchmark
  public int timingEncodeInto() {
    return TimingHeader.encode(sendEpochMicros, 7L, true, target, 0);
  }

  /** As the consumer hook does it: into one reused holder. */
  @Benchmark
  public TimingHeader.DecodeError timingDecode() {
    return TimingHeader.decode(timing, decoded);
  }

  /** As the producer hook does it: the header's bytes, no string in between. */
  @Benchmark
  public byte[] traceparentEncode() {
    return TraceIds.traceparentBytes(0x1234L, 0x5678L, 0x9abcL, true);
  }

  @Benchmark
  public boolean traceparentDecode() {
    return TraceIds.parseTraceparent(traceparent, parsed);
  }
}
