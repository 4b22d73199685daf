package dev.klat.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU time of this JVM's JIT compiler threads (C1 and C2), from {@code /proc/self/task}: the
 * JVM hides them from {@code ThreadMXBean}. Sampled while the run goes on, the last reading of each
 * thread kept, since the JVM stops compiler threads it no longer needs. Clock ticks of 10 ms; zero
 * where there is no {@code /proc}.
 */
final class CompilerThreadsCpu {

  private static final Path TASKS = Paths.get("/proc/self/task");
  private static final long NANOS_PER_TICK = 10_000_000L;

  private final Map<String, Long> lastNanosByTask = new ConcurrentHashMap<>();

  void sample() {
    if (!Files.isDirectory(TASKS)) {
      return;
    }
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        readTask(task);
      }
    } catch (IOException | RuntimeException e) {
      // A task that ended while listed, or no /proc: the last readings stand.
    }
  }

  long totalNanos() {
    return lastNanosByTask.values().stream().mapToLong(Long::longValue).sum();
  }

  private void readTask(Path task) {
    try {
      String stat = new String(Files.readAllBytes(task.resolve("stat")), StandardCharsets.US_ASCII);
      int open = stat.indexOf('(');
      int close = stat.lastIndexOf(')');
      String comm = stat.substring(open + 1, close);
      if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) {
        return;
      }
      // After the name: state is field 3, utime 14 and stime 15 of the whole line.
      String[] fields = stat.substring(close + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      lastNanosByTask.put(task.getFileName().toString(), ticks * NANOS_PER_TICK);
    } catch (IOException | RuntimeException e) {
      // The task ended: its last reading stands.
    }
  }
}
