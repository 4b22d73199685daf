package dev.klat.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A lab application in a JVM of its own, spoken to line by line: what it prints goes to its log
 * file, and the lines the lab waits for (its protocol answers) to a queue as well.
 */
final class AppProcess {

  private final String name;
  private final Process process;
  private final PrintWriter stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>(1000);
  private final Path log;

  private AppProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.stdin =
        new PrintWriter(
            new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
  }

  /** Starts {@code command}; its output (standard error too) goes to {@code log}. */
  static AppProcess start(String name, List<String> command, Path log) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    AppProcess app = new AppProcess(name, process, log);
    Thread reader = new Thread(app::pump, "lab-" + name + "-output");
    reader.setDaemon(true);
    reader.start();
    return app;
  }

  private void pump() {
    try (BufferedReader out =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer file = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      for (String line; (line = out.readLine()) != null; ) {
        file.write(line);
        file.write('\n');
        file.flush();
        // Bounded: a chatty application loses protocol lines only after 1000 unread ones.
        lines.offer(line);
      }
    } catch (IOException e) {
      // The process ended.
    }
  }

  /**
   * The next line that starts with {@code prefix}, skipping others.
   *
   * @throws IllegalStateException when none comes within the timeout or the process exits
   */
  String await(String prefix, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      long left = deadline - System.nanoTime();
      String line =
          left <= 0 ? null : lines.poll(Math.min(left, 200_000_000L), TimeUnit.NANOSECONDS);
      if (line != null && line.startsWith(prefix)) {
        return line;
      }
      if (line == null && (left <= 0 || (!process.isAlive() && lines.isEmpty()))) {
        throw new IllegalStateException(
            name
                + (process.isAlive()
                    ? " did not say '" + prefix + "' in " + timeoutMs + " ms"
                    : " exited")
                + "; see "
                + log);
      }
    }
  }

  /** Sends one line to the application. */
  void send(String line) {
    stdin.println(line);
  }

  /** Ends its standard input (the application's signal to stop), then waits, then kills it. */
  void stop(long graceMs) {
    stdin.close();
    try {
      if (!process.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
        process.destroy();
        if (!process.waitFor(3, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Kills it at once, for the shutdown hook. */
  void kill() {
    process.destroyForcibly();
  }
}
