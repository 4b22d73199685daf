package dev.klat.probe;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the broker probe adds to a leader's handling of one follower fetch of one partition ({@code
 * Partition.updateFollowerFetchState}), its hooks called as the woven broker calls them:
 *
 * <ul>
 *   <li>{@link #followerFetchWithoutHooks}: the baseline, the fetch's arguments consumed;
 *   <li>{@link #followerFetchWithHooks}: the entry hook (the follower's id read through a method
 *       handle, noted in the thread's slot), the high-watermark hook of a fetch that did not move
 *       it, and the exit hook;
 *   <li>{@link #highWatermarkAdvanceFollowerLookup}: what an advance adds to find its follower.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FollowerFetchHooksBenchmark {

  /** Stands for {@code Replica}: the follower's node id is an int. */
  public static final class Replica {
    private final int brokerId;

    Replica(int brokerId) {
      this.brokerId = brokerId;
    }

    public int brokerId() {
      return brokerId;
    }
  }

  private final Replica replica = new Replica(2);
  private final Object topicPartition = new Object();
  private final Object leaderLog = new Object();

  @Setup
  public void setUp() {
    PartitionHooks.install(new EventRing(1 << 15));
  }

  @Benchmark
  public void followerFetchWithoutHooks(Blackhole sink) {
    sink.consume(replica);
    sink.consume(topicPartition);
  }

  @Benchmark
  public void followerFetchWithHooks(Blackhole sink) {
    PartitionHooks.followerFetchStarted(replica, topicPartition);
    sink.consume(replica);
    sink.consume(topicPartition);
    PartitionHooks.highWatermarkChecked(false, topicPartition, 1, 1, leaderLog);
    PartitionHooks.followerFetchEnded();
  }

  @Benchmark
  public int highWatermarkAdvanceFollowerLookup() {
    return FollowerFetches.followerOf(topicPartition);
  }
}
