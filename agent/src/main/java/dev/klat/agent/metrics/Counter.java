package dev.klat.agent.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * A monotonic count, exported as a cumulative OTLP sum. Lock-free: {@link LongAdder} only
 * compare-and-swaps, and spreads contending threads over cells instead of making them retry on one
 * value.
 */
public final class Counter {

  private final LongAdder adder = new LongAdder();

  /** Creates a counter at 0. */
  public Counter() {}

  /** Adds 1. */
  public void increment() {
    adder.increment();
  }

  /**
   * Adds a non-negative amount.
   *
   * @param amount the amount; a negative amount is ignored, since the count must never decrease
   */
  public void add(long amount) {
    if (amount > 0) {
      adder.add(amount);
    }
  }

  /**
   * Returns the count.
   *
   * @return the sum of every increment so far
   */
  public long value() {
    return adder.sum();
  }
}
