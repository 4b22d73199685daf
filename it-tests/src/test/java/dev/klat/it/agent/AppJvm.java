package dev.klat.it.agent;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs a test application in its own JVM on a chosen kafka-clients version, optionally with klat.
 */
final class AppJvm {

  static final Path AGENT_JAR = Paths.get(System.getProperty("klat.agent.jar"));
  private static final Path CLIENTS_DIR = Paths.get(System.getProperty("klat.kafka-clients.dir"));

  private AppJvm() {}

  /**
   * How long a test application stays up after its last record, in ms (the applications' linger
   * argument): a little more than one metrics interval of {@link #agentOptions} (500 ms), so that a
   * periodic export falls after the last record. Spans still waiting for the agent's 1 s span timer
   * leave with its shutdown flush as the JVM exits, as they do when a real application exits, and
   * the flush sends the metric totals once more. It was 1500, three intervals: about 35 application
   * runs per CI pass each slept 0.9 s more.
   */
  static final String LINGER_MILLIS = "600";

  /**
   * JVM options that attach the agent, exporting to {@code endpoint}, sampling with {@code
   * probability} and no practical rate cap, and exporting metrics every 500 ms so that a short
   * application run still reports them.
   */
  static List<String> agentOptions(String endpoint, String probability) {
    return List.of(
        "-javaagent:" + AGENT_JAR,
        "-Dklat.endpoint=" + endpoint,
        "-Dklat.sampling.probability=" + probability,
        "-Dklat.sampling.max-per-second=100000",
        "-Dklat.metrics.interval=500ms");
  }

  /** The result of one run: exit code and everything the JVM printed. */
  record Result(int exitCode, String output) {
    String value(String key) {
      return output
          .lines()
          .filter(line -> line.startsWith(key + "="))
          .map(line -> line.substring(key.length() + 1))
          .reduce((first, second) -> second)
          .orElseThrow(() -> new AssertionError("no " + key + "= in output:\n" + output));
    }
  }

  static Result run(
      String clientsVersion, List<String> jvmOptions, Class<?> mainClass, String... args)
      throws IOException, InterruptedException {
    return start(clientsVersion, jvmOptions, mainClass, args).await();
  }

  /** A running application: its output so far, and its end. */
  static final class Running {
    private final Process process;
    private final Path log;

    Running(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    long pid() {
      return process.pid();
    }

    /** Ends the application's standard input: a lingering test application then exits. */
    void closeInput() throws IOException {
      process.getOutputStream().close();
    }

    /** Writes {@code line} to the application's standard input: a control command. */
    void writeLine(String line) throws IOException {
      process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    }

    /** Ends the application at once (a test that failed half way). */
    void destroy() {
      process.destroyForcibly();
    }

    /** Whether the application is still running. */
    boolean isAlive() {
      return process.isAlive();
    }

    String outputSoFar() throws IOException {
      return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** Waits until the application printed {@code line}, failing after 60 s or if it exited. */
    void awaitLine(String line) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!outputSoFar().lines().anyMatch(line::equals)) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new AssertionError("application never printed " + line + ":\n" + outputSoFar());
        }
        Thread.sleep(20);
      }
    }

    Result await() throws IOException, InterruptedException {
      return await(Duration.ofSeconds(120));
    }

    Result await(Duration timeout) throws IOException, InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(
            "application did not finish in " + timeout.toSeconds() + " s:\n" + outputSoFar());
      }
      return new Result(process.exitValue(), outputSoFar());
    }
  }

  /**
   * Runs the application with kafka-clients and the application in a child class loader, and only
   * {@link ChildLoaderLauncher} on the system class path.
   */
  static Result runInChildLoader(
      String clientsVersion, List<String> jvmOptions, Class<?> mainClass, String... args)
      throws IOException, InterruptedException {
    Path launcherClasses = Paths.get("target", "launcher-classes").toAbsolutePath();
    Path launcher =
        launcherClasses.resolve(ChildLoaderLauncher.class.getName().replace('.', '/') + ".class");
    Files.createDirectories(launcher.getParent());
    Files.copy(
        Paths.get("target", "test-classes").resolve(launcherClasses.relativize(launcher)),
        launcher,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    List<String> command = java(jvmOptions);
    command.add("-cp");
    command.add(launcherClasses.toString());
    command.add(ChildLoaderLauncher.class.getName());
    command.add(classpath(clientsVersion));
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    return launch(command, mainClass.getSimpleName() + "-child-" + clientsVersion).await();
  }

  static Running start(
      String clientsVersion, List<String> jvmOptions, Class<?> mainClass, String... args)
      throws IOException {
    List<String> command = java(jvmOptions);
    command.add("-cp");
    command.add(classpath(clientsVersion));
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    return launch(command, mainClass.getSimpleName() + "-" + clientsVersion);
  }

  /** Runs an executable jar ({@code java -jar}), as a Spring Boot application is run. */
  static Running startJar(Path jar, List<String> jvmOptions, String... args) throws IOException {
    List<String> command = java(jvmOptions);
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args));
    String name = jar.getFileName().toString();
    return launch(command, name.substring(0, name.length() - ".jar".length()));
  }

  // The test's own java with a small heap and the options; the caller adds what to run.
  private static List<String> java(List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.addAll(jvmOptions);
    return command;
  }

  private static Running launch(List<String> command, String logName) throws IOException {
    Path logs = Files.createDirectories(Paths.get("target", "app-logs"));
    Path log = Files.createTempFile(logs, logName + "-", ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new Running(process, log);
  }

  private static String classpath(String clientsVersion) throws IOException {
    List<String> entries = new ArrayList<>();
    entries.add(Paths.get("target", "test-classes").toAbsolutePath().toString());
    for (Path dir : List.of(CLIENTS_DIR.resolve(clientsVersion), CLIENTS_DIR.resolve("common"))) {
      try (Stream<Path> jars = Files.list(dir)) {
        entries.addAll(jars.map(Path::toString).sorted().collect(Collectors.toList()));
      }
    }
    return String.join(File.pathSeparator, entries);
  }
}
