package dev.klat.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The command line of {@code ./klat lab}.
 *
 * @param bootstrap the user's cluster, or null for the embedded one
 * @param commandConfig the client settings (security) for the user's cluster, or null
 * @param experiments the chosen experiments' names, in the catalogue's order; all when none chosen
 * @param timeBudget the whole run's budget, cluster start included
 * @param out where the report, the CSV and the logs go
 * @param recordsPerSecond the fixed rate of the measured windows, all producers together
 * @param quick the smoke profile of {@link Plan#quick}
 */
record LabOptions(
    String bootstrap,
    Path commandConfig,
    List<String> experiments,
    Duration timeBudget,
    Path out,
    double recordsPerSecond,
    boolean quick) {

  static final String USAGE =
      "usage: ./klat lab [--bootstrap-server HOST:PORT [--command-config FILE]]"
          + " [--experiment NAME ...] [--time-budget 10m] [--out DIR] [--rate 200] [--quick]\n"
          + "  experiments: "
          + String.join(", ", Experiments.NAMES)
          + " (default: all)";

  /**
   * @throws IllegalArgumentException with what is wrong, for the usage message
   */
  static LabOptions parse(List<String> args, Path defaultOut) {
    String bootstrap = null;
    Path commandConfig = null;
    List<String> chosen = new ArrayList<>();
    Duration budget = Duration.ofMinutes(10);
    Path out = defaultOut;
    double rate = 200;
    boolean quick = false;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      switch (arg) {
        case "--bootstrap-server" -> bootstrap = value(args, ++i, arg);
        case "--command-config" -> {
          commandConfig = Paths.get(value(args, ++i, arg)).toAbsolutePath().normalize();
          if (!Files.isReadable(commandConfig)) {
            throw new IllegalArgumentException(
                "--command-config " + commandConfig + ": no such readable file");
          }
        }
        case "--experiment" -> {
          for (String name : value(args, ++i, arg).split(",")) {
            Experiments.named(name.trim());
            if (!chosen.contains(name.trim())) {
              chosen.add(name.trim());
            }
          }
        }
        case "--time-budget" -> budget = duration(value(args, ++i, arg));
        case "--out" -> out = Paths.get(value(args, ++i, arg));
        case "--rate" -> {
          rate = Double.parseDouble(value(args, ++i, arg));
          if (!(rate > 0 && rate <= 10_000)) {
            throw new IllegalArgumentException("--rate must be above 0 and at most 10000");
          }
        }
        case "--quick" -> quick = true;
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    if (commandConfig != null && bootstrap == null) {
      throw new IllegalArgumentException(
          "--command-config applies to --bootstrap-server: the embedded cluster needs none");
    }
    List<String> ordered = new ArrayList<>();
    for (String name : Experiments.NAMES) {
      if (chosen.isEmpty() || chosen.contains(name)) {
        ordered.add(name);
      }
    }
    return new LabOptions(
        bootstrap, commandConfig, ordered, budget, out.toAbsolutePath().normalize(), rate, quick);
  }

  private static String value(List<String> args, int index, String option) {
    if (index >= args.size()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args.get(index);
  }

  /** {@code 90s}, {@code 3m}, {@code 1h}, or whole seconds. */
  static Duration duration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      }
      if (t.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
      }
      if (t.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
      }
      if (t.endsWith("h")) {
        return Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1)));
      }
      return Duration.ofSeconds(Long.parseLong(t));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a duration: " + text + " (examples: 90s, 3m, 1h)");
    }
  }
}
