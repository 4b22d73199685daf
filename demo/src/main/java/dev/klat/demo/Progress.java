package dev.klat.demo;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/** A step of the demo's start, shown as a line that ticks the seconds until the step ends. */
public final class Progress {
  private Progress() {}

  /** A step that may fail. */
  public interface Step<T> {
    T run() throws Exception;
  }

  /**
   * Runs {@code step}, showing a ticking progress line until it ends (on a terminal), then how long
   * it took.
   */
  public static <T> T run(PrintStream out, boolean terminal, String what, Step<T> step)
      throws Exception {
    long startNanos = System.nanoTime();
    Thread ticker =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
                if (terminal) {
                  out.print("\r  " + what + " ... " + seconds + " s");
                  out.flush();
                }
                try {
                  Thread.sleep(500);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "klat-demo-progress");
    ticker.setDaemon(true);
    ticker.start();
    try {
      T result = step.run();
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
      out.println((terminal ? "\r" : "") + "  " + what + " ... done in " + millis + " ms");
      return result;
    } finally {
      ticker.interrupt();
    }
  }
}
