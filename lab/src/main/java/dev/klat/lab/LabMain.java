package dev.klat.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ./klat lab}: re-runs Kafka's well-known tuning experiments on the embedded cluster or on
 * the user's, and reports which latency segment each setting moves. The repository is the system
 * property {@code klat.lab.root} (default {@code .}). Ctrl-C stops every process the lab started
 * and deletes its topics. The last line printed is the path of the HTML report.
 */
public final class LabMain {

  private LabMain() {}

  public static void main(String[] args) {
    Path root = Paths.get(System.getProperty("klat.lab.root", ".")).toAbsolutePath().normalize();
    LabOptions options;
    try {
      options = LabOptions.parse(Arrays.asList(args), root.resolve("target/lab"));
    } catch (IllegalArgumentException e) {
      System.err.println("klat lab: " + e.getMessage());
      System.err.println(LabOptions.USAGE);
      System.exit(2);
      return;
    }
    try {
      Files.createDirectories(options.out());
    } catch (Exception e) {
      System.err.println("klat lab: cannot write to " + options.out() + ": " + e);
      System.exit(1);
    }
    // The lab's own Kafka clients (the admin client) log to a file: the terminal shows progress.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty(
        "org.slf4j.simpleLogger.logFile", options.out().resolve("lab-clients.log").toString());
    Lab lab = new Lab(root, options, System.out, System.console() != null);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (lab.stop()) {
                    System.err.println(
                        "klat lab: stopped; every process it started is ended and its topics"
                            + " deleted");
                  }
                },
                "klat-lab-stop"));
    try {
      Lab.Outcome outcome = lab.run();
      lab.stop();
      printFindings(outcome);
      System.out.println(outcome.html());
    } catch (Lab.Stopped e) {
      // Ctrl-C: the shutdown hook stops everything and says so; System.exit would wait for it.
      return;
    } catch (LabException e) {
      System.err.println("klat lab: " + e.getMessage());
      lab.stop();
      System.exit(1);
    } catch (Exception e) {
      System.err.println("klat lab failed: " + e);
      lab.stop();
      System.exit(1);
    }
  }

  private static void printFindings(Lab.Outcome outcome) {
    System.out.println();
    for (Experiment experiment : outcome.plan().experiments()) {
      List<Result> own =
          outcome.results().stream()
              .filter(r -> r.experiment().name().equals(experiment.name()))
              .toList();
      System.out.println(experiment.name() + " (" + experiment.knob() + "):");
      if (outcome.plan().repeats() > 1) {
        for (SettingRuns runs : SettingRuns.of(own)) {
          System.out.println("  " + Summary.line(runs));
        }
      }
      for (String finding : Findings.of(own)) {
        System.out.println("  " + finding);
      }
    }
    System.out.println("figures: " + outcome.csv());
  }
}
