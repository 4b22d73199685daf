package dev.klat.collector.hostile;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real collector process ({@code dev.klat.collector.Main} on the test class path) with a small
 * heap that exits on the first {@link OutOfMemoryError}, so that an attack that exhausts memory
 * shows as a dead process. Its ports are read from its start-up line; its log goes to {@code
 * target/hostile-logs}.
 */
final class HostileCollector implements AutoCloseable {
  static final String HEAP = "-Xmx256m";
  private static final Pattern LISTENING =
      Pattern.compile(
          "OTLP/HTTP on [^,]*:(\\d+), OTLP/gRPC on [^,]*:(\\d+), metrics and API on \\S*:(\\d+)");

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  final Process process;
  final Path log;
  final int httpPort;
  final int grpcPort;
  final int adminPort;

  private HostileCollector(Process process, Path log, int[] ports) {
    this.process = process;
    this.log = log;
    this.httpPort = ports[0];
    this.grpcPort = ports[1];
    this.adminPort = ports[2];
  }

  /** Starts the collector with {@code settings} ({@code --key=value}) on free ports. */
  static HostileCollector start(String... settings) throws Exception {
    Path logs = Files.createDirectories(Paths.get("target", "hostile-logs"));
    Path log = Files.createTempFile(logs, "collector-", ".log");
    List<String> command =
        new ArrayList<>(
            List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                HEAP,
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.klat.collector.Main",
                "--otlp.http.port=0",
                "--otlp.grpc.port=0",
                "--admin.port=0"));
    command.addAll(List.of(settings));
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Matcher m = LISTENING.matcher(Files.readString(log));
      if (m.find()) {
        int[] ports = {
          Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))
        };
        return new HostileCollector(process, log, ports);
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(100);
    }
    process.destroyForcibly();
    throw new IllegalStateException("collector did not start: " + Files.readString(log));
  }

  /** A POST to the OTLP/HTTP receiver; the status, or -1 when the connection was cut. */
  int post(String path, String contentType, String encoding, HttpRequest.BodyPublisher body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", contentType)
            .POST(body);
    if (encoding != null) {
      b.header("Content-Encoding", encoding);
    }
    try {
      return HTTP.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** A GET on the admin server. */
  HttpResponse<String> admin(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** A counter of {@code /api/stats} ({@code joined}, {@code requestsRejected.too-large}). */
  long stat(String name) throws Exception {
    Matcher m =
        Pattern.compile("\"" + Pattern.quote(name) + "\":(\\d+)")
            .matcher(admin("/api/stats").body());
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  String logText() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
