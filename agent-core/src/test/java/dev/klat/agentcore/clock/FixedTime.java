package dev.klat.agentcore.clock;

/** A clock that stands still until a test moves it. Public for the client agent's tests. */
public final class FixedTime implements TimeSource {
  public volatile long epochNanos;
  public volatile long nanoTime;

  public FixedTime(long epochNanos) {
    this.epochNanos = epochNanos;
  }

  @Override
  public long epochNanos() {
    return epochNanos;
  }

  @Override
  public long nanoTime() {
    return nanoTime;
  }
}
