package dev.klat.agent.weave;

import dev.klat.agentcore.weave.StateHolder;
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
 * {@link States}: the lookup the producer's hooks make twice per record (the producer's state at
 * {@code send()}, the batch's at the append), from the field of a class woven as it loaded (the
 * {@code -javaagent} path) and from the weak identity map of a class retransformed after an attach,
 * with {@code live} other objects in the map (the batches and clients alive at once); and the state
 * a new batch gets once, in the map.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StatesBenchmark {

  /** What a woven kafka-clients class looks like to {@link States}. */
  static final class Woven implements StateHolder {
    private volatile Object state;

    @Override
    public Object klat$state() {
      return state;
    }

    @Override
    public void klat$state(Object value) {
      state = value;
    }
  }

  @Param({"100", "10000"})
  public int live;

  private final Woven woven = new Woven();
  private final Object retransformed = new Object();
  private Object[] others;

  @Setup
  public void setUp() {
    woven.klat$state("state");
    States.set(retransformed, "state");
    others = new Object[live];
    for (int i = 0; i < live; i++) {
      others[i] = new Object();
      States.set(others[i], i);
    }
  }

  @Benchmark
  public Object fieldOfAClassWovenAsItLoaded() {
    return States.get(woven);
  }

  @Benchmark
  public Object mapAfterAnAttach() {
    return States.get(retransformed);
  }

  @Benchmark
  public Object newStateInTheMap() {
    Object batch = new Object();
    States.set(batch, "timing");
    return batch;
  }
}
