package dev.klat.agentcore.weave;

/** A class for the weaver to rewrite in tests: arguments and returns of every size. */
public class WeaveTarget {

  private final String name = "target";
  private long total;

  public String greet(String who, long times) {
    total += times;
    return name + " greets " + who + " x" + times;
  }

  public long add(long delta) {
    if (delta < 0) {
      return total;
    }
    total += delta;
    return total;
  }

  public void fail() {
    throw new IllegalStateException("the application's own failure");
  }

  public static int increment(int value) {
    return value + 1;
  }
}
