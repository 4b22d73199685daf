package dev.klat.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The demo's kafkajs consumer (docs/clients.md): a Node.js application without klat's agent,
 * instrumented by OpenTelemetry's kafkajs instrumentation, exporting OTLP/HTTP to the demo's
 * collector. Optional: the demo needs only a JDK, so without {@code node} and {@code npm} on the
 * {@code PATH}, or when installing the packages fails, it says so in one line and the demo goes on.
 *
 * <p>The packages are those {@code it-apps/otel-node} pins (its {@code package.json} and {@code
 * package-lock.json}), installed with {@code npm ci} once per lock file into {@code
 * ~/.cache/klat/demo-node/<lock hash>} (never into the source tree), through a directory of their
 * own renamed into place when complete, so that an interrupted install is never used. The
 * application is {@code demo/src/main/node/demo-consumer.js}, copied beside the packages.
 */
final class NodeConsumer {
  /** What the demo prints about the consumer, one line each. */
  static final String LABEL = "kafkajs consumer (OpenTelemetry instrumentation)";

  private static final long NPM_TIMEOUT_SECONDS = 300;
  private static final String SCRIPT = "demo-consumer.js";
  private static final String INSTALLED = ".klat-installed";

  private final Path packageDir;
  private final Path script;
  private final Path cacheRoot;
  private final Path logDir;
  private final Consumer<Process> started;

  /**
   * @param root the repository
   * @param cacheRoot where installed packages are kept, one directory per lock file
   * @param logDir where {@code demo-node-npm.log} and {@code demo-node.log} go
   * @param started told of every process this starts, so that the demo stops it
   */
  NodeConsumer(Path root, Path cacheRoot, Path logDir, Consumer<Process> started) {
    this.packageDir = root.resolve("it-apps/otel-node");
    this.script = root.resolve("demo/src/main/node").resolve(SCRIPT);
    this.cacheRoot = cacheRoot;
    this.logDir = logDir;
    this.started = started;
  }

  /** {@code ~/.cache/klat/demo-node}, or {@code $XDG_CACHE_HOME/klat/demo-node}. */
  static Path defaultCacheRoot() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path cache =
        xdg != null && !xdg.isEmpty()
            ? Paths.get(xdg)
            : Paths.get(System.getProperty("user.home"), ".cache");
    return cache.resolve("klat").resolve("demo-node");
  }

  /**
   * Why the consumer cannot run here, or null when it can be tried: {@code node} and {@code npm}
   * answer {@code --version}, and the package and the application are in the repository.
   */
  String missing() {
    if (!Files.isRegularFile(packageDir.resolve("package-lock.json"))) {
      return packageDir.resolve("package-lock.json") + " is missing";
    }
    if (!Files.isRegularFile(script)) {
      return script + " is missing";
    }
    for (String tool : List.of("node", "npm")) {
      if (!answers(tool)) {
        return "no " + tool + " on the PATH";
      }
    }
    return null;
  }

  /**
   * Installs the packages if this lock file's are not installed yet, and returns the directory that
   * holds them with the application beside them.
   *
   * @throws IOException when {@code npm ci} fails or takes longer than {@value
   *     #NPM_TIMEOUT_SECONDS} s; the log names where its output is
   */
  Path install() throws IOException, InterruptedException {
    byte[] lock = Files.readAllBytes(packageDir.resolve("package-lock.json"));
    Path dir = cacheRoot.resolve(hash(lock));
    if (!Files.isRegularFile(dir.resolve(INSTALLED))) {
      // Left half-way by an interrupted older demo: never used, replaced.
      deleteTree(dir);
      Files.createDirectories(cacheRoot);
      Path staging = Files.createTempDirectory(cacheRoot, "installing-");
      try {
        Files.copy(packageDir.resolve("package.json"), staging.resolve("package.json"));
        Files.write(staging.resolve("package-lock.json"), lock);
        Path log = logDir.resolve("demo-node-npm.log");
        Process npm =
            new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                .directory(staging.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        started.accept(npm);
        if (!npm.waitFor(NPM_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          npm.destroyForcibly();
          throw new IOException(
              "npm ci took longer than " + NPM_TIMEOUT_SECONDS + " s; see " + log);
        }
        if (npm.exitValue() != 0) {
          throw new IOException("npm ci exited with " + npm.exitValue() + "; see " + log);
        }
        Files.writeString(staging.resolve(INSTALLED), hash(lock) + "\n");
        moveIntoPlace(staging, dir);
      } finally {
        deleteTree(staging);
      }
    }
    Files.copy(script, dir.resolve(SCRIPT), StandardCopyOption.REPLACE_EXISTING);
    return dir;
  }

  /**
   * Starts the consumer from {@code dir} (see {@link #install}), exporting to {@code endpoint}.
   * Only the records whose producer's trace is sampled are traced (klat's agent samples the
   * producer): their consumer spans join the producer's.
   */
  Process start(Path dir, String bootstrap, String topic, String group, String endpoint)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add("node");
    command.add(SCRIPT);
    command.add(bootstrap);
    command.add(topic);
    command.add(group);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(logDir.resolve("demo-node.log").toFile());
    builder.environment().put("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
    builder.environment().put("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
    builder.environment().put("OTEL_SERVICE_NAME", group);
    builder.environment().put("OTEL_TRACES_SAMPLER", "parentbased_always_off");
    builder.environment().put("OTEL_BSP_SCHEDULE_DELAY", "500");
    Process node = builder.start();
    started.accept(node);
    return node;
  }

  private static boolean answers(String tool) {
    try {
      Process p =
          new ProcessBuilder(tool, "--version")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  // Another demo may have installed the same lock file meanwhile: then its directory is used.
  private static void moveIntoPlace(Path staging, Path dir) throws IOException {
    try {
      Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      // The target exists (installed meanwhile, or left half-way by an older demo): used only when
      // complete.
      if (!Files.isRegularFile(dir.resolve(INSTALLED))) {
        throw new IOException("cannot move the installed packages to " + dir + ": " + e, e);
      }
    }
  }

  static String hash(byte[] bytes) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
