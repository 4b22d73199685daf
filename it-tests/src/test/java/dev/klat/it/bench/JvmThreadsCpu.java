package dev.klat.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU time of this JVM's own threads, from {@code /proc/self/task}: the JIT compiler threads
 * (C1 and C2) and the garbage collector's (G1's workers, marker, refinement and service threads),
 * which {@code ThreadMXBean} does not list. Sampled while the run goes on, the last reading of each
 * thread kept, since the JVM stops threads it no longer needs. Clock ticks of 10 ms; zero where
 * there is no {@code /proc}.
 */
final class JvmThreadsCpu {

  /** The threads counted, by the start of their name. */
  enum Kind {
    JIT("C1 Compiler", "C2 Compiler"),
    GC("GC Thread", "G1 ");

    private final String[] namePrefixes;

    Kind(String... namePrefixes) {
      this.namePrefixes = namePrefixes;
    }

    static Kind of(String threadName) {
      for (Kind kind : values()) {
        for (String prefix : kind.namePrefixes) {
          if (threadName.startsWith(prefix)) {
            return kind;
          }
        }
      }
      return null;
    }
  }

  private static final Path TASKS = Paths.get("/proc/self/task");
  private static final long NANOS_PER_TICK = 10_000_000L;

  private final Map<String, Long> lastNanosByTask = new ConcurrentHashMap<>();
  private final Map<String, Kind> kindByTask = new ConcurrentHashMap<>();
  // Tasks of no kind counted (the Java threads, most of them): passed over, since the sampler runs
  // beside what it measures and a read of /proc costs tens of microseconds. Forgotten every
  // RECHECK_SAMPLES samples: a thread the JVM just started may still carry its parent's name.
  private static final int RECHECK_SAMPLES = 20;
  private final Set<String> otherTasks = ConcurrentHashMap.newKeySet();
  private int samples;

  void sample() {
    if (!Files.isDirectory(TASKS)) {
      return;
    }
    if (++samples % RECHECK_SAMPLES == 0) {
      otherTasks.clear();
    }
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        if (!otherTasks.contains(task.getFileName().toString())) {
          readTask(task);
        }
      }
    } catch (IOException | RuntimeException e) {
      // A task that ended while listed, or no /proc: the last readings stand.
    }
  }

  long totalNanos(Kind kind) {
    long total = 0;
    for (Map.Entry<String, Long> task : lastNanosByTask.entrySet()) {
      if (kindByTask.get(task.getKey()) == kind) {
        total += task.getValue();
      }
    }
    return total;
  }

  private void readTask(Path task) {
    try {
      String stat = new String(Files.readAllBytes(task.resolve("stat")), StandardCharsets.US_ASCII);
      int open = stat.indexOf('(');
      int close = stat.lastIndexOf(')');
      String comm = stat.substring(open + 1, close);
      Kind kind = Kind.of(comm);
      if (kind == null) {
        otherTasks.add(task.getFileName().toString());
        return;
      }
      // After the name: state is field 3, utime 14 and stime 15 of the whole line.
      String[] fields = stat.substring(close + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      String id = task.getFileName().toString();
      kindByTask.put(id, kind);
      lastNanosByTask.put(id, ticks * NANOS_PER_TICK);
    } catch (IOException | RuntimeException e) {
      // The task ended: its last reading stands.
    }
  }
}
