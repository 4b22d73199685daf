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
 * @param repeats how many times each setting runs (1 to {@value #MAX_REPEATS})
 * @param throughputSeconds seconds of each unbounded-rate run, 0 for none; null lets the budget
 *     decide
 * @param brokerExporterPort with {@code bootstrap}: the port of every broker's JMX exporter, or
 *     null
 * @param brokerJmxPort with {@code bootstrap}: every broker's JMX port, or null
 */
record LabOptions(
    String bootstrap,
    Path commandConfig,
    List<String> experiments,
    Duration timeBudget,
    Path out,
    double recordsPerSecond,
    boolean quick,
    int repeats,
    Integer throughputSeconds,
    Integer brokerExporterPort,
    Integer brokerJmxPort) {

  static final int MAX_REPEATS = 20;
  static final int MAX_THROUGHPUT_SECONDS = 600;

  static final String USAGE =
      "usage: ./klat lab [--bootstrap-server HOST:PORT [--command-config FILE]"
          + " [--broker-exporter-port P] [--broker-jmx-port P]]\n"
          + "                 [--experiment NAME ...] [--time-budget 10m] [--out DIR] [--rate 200]"
          + " [--repeats 1] [--throughput-seconds S] [--quick]\n"
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
    int repeats = 1;
    Integer throughputSeconds = null;
    Integer exporterPort = null;
    Integer jmxPort = null;
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
          String text = value(args, ++i, arg);
          try {
            rate = Double.parseDouble(text);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--rate takes a number, not " + text);
          }
          if (!(rate > 0 && rate <= 10_000)) {
            throw new IllegalArgumentException("--rate must be above 0 and at most 10000");
          }
        }
        case "--quick" -> quick = true;
        case "--repeats" -> repeats = integer(value(args, ++i, arg), arg, 1, MAX_REPEATS);
        case "--throughput-seconds" ->
            throughputSeconds = integer(value(args, ++i, arg), arg, 0, MAX_THROUGHPUT_SECONDS);
        case "--broker-exporter-port" ->
            exporterPort = integer(value(args, ++i, arg), arg, 1, 65535);
        case "--broker-jmx-port" -> jmxPort = integer(value(args, ++i, arg), arg, 1, 65535);
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    if (commandConfig != null && bootstrap == null) {
      throw new IllegalArgumentException(
          "--command-config applies to --bootstrap-server: the embedded cluster needs none");
    }
    if ((exporterPort != null || jmxPort != null) && bootstrap == null) {
      throw new IllegalArgumentException(
          "--broker-exporter-port and --broker-jmx-port apply to --bootstrap-server: the embedded"
              + " cluster's brokers are read by the broker probe and their exporters already");
    }
    List<String> ordered = new ArrayList<>();
    for (String name : Experiments.NAMES) {
      if (chosen.isEmpty() || chosen.contains(name)) {
        ordered.add(name);
      }
    }
    return new LabOptions(
        bootstrap,
        commandConfig,
        ordered,
        budget,
        out.toAbsolutePath().normalize(),
        rate,
        quick,
        repeats,
        throughputSeconds,
        exporterPort,
        jmxPort);
  }

  private static int integer(String text, String option, int min, int max) {
    int parsed;
    try {
      parsed = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " takes a whole number, not " + text);
    }
    if (parsed < min || parsed > max) {
      throw new IllegalArgumentException(
          option + " must be from " + min + " to " + max + ", not " + parsed);
    }
    return parsed;
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
