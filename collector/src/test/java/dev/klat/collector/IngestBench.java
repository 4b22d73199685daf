package dev.klat.collector;

import static dev.klat.collector.receive.OtlpValues.id;
import static dev.klat.collector.receive.OtlpValues.num;
import static dev.klat.collector.receive.OtlpValues.str;

import com.google.protobuf.ByteString;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A manual benchmark of the whole OTLP/HTTP path (not a test): pre-encoded protobuf requests of 500
 * records (a producer and a consumer span each) posted by one client thread to a collector; prints
 * joined breakdowns per second. Run as in {@code docs/collector.md}.
 *
 * <p>{@code IngestBench <requests> [rounds] [mode] [port]}; each round posts {@code requests} new
 * requests (fresh offsets, so that every round joins anew) and is timed on its own, the request
 * bodies encoded before the clock starts. Modes:
 *
 * <ul>
 *   <li>{@code same} (default): the collector in this JVM, the client a thread beside it, so that
 *       one {@code taskset} puts both on the same cores;
 *   <li>{@code server}: only the collector, OTLP/HTTP on {@code port} (default 4318) and the admin
 *       endpoint on {@code port + 1}; exits once it has joined every record of every round, and
 *       prints its own CPU time per round;
 *   <li>{@code client}: only the client, posting to a {@code server} on {@code port} and reading
 *       its join count from the admin endpoint between rounds, outside the timing;
 *   <li>{@code secure}: as {@code same}, with two collectors, one plain and one with TLS (a
 *       throw-away CA's certificate) and a bearer token on OTLP/HTTP; each round posts the same
 *       bodies to both, interleaved five requests at a time, and the last line is the secured
 *       throughput over the plain one (a round's: the median of its slices' ratios), the mean of
 *       the rounds from round 2 on (rounds 0 and 1 warm the JIT) with its 95% interval.
 * </ul>
 *
 * <p>The client's clock is the measure in every mode: the collector answers a request only after it
 * has decoded it and offered every span to the join, so the last answer ends the round.
 */
public final class IngestBench {
  public static final int PER_REQUEST = 500;
  private static final long BASE_NANOS = 1_800_000_000_000_000_000L;
  private static final Pattern JOINED = Pattern.compile("\"joined\":(\\d+)");

  private IngestBench() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 400;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    String mode = args.length > 2 ? args[2] : "same";
    int port = args.length > 3 ? Integer.parseInt(args[3]) : 4318;
    switch (mode) {
      case "same" -> same(requests, rounds);
      case "server" -> server(requests, rounds, port);
      case "client" -> client(requests, rounds, port);
      case "secure" -> secure(requests, rounds);
      default ->
          throw new IllegalArgumentException("mode is same, server, client or secure: " + mode);
    }
  }

  private static void same(int requests, int rounds) throws Exception {
    try (Collector collector = startCollector(requests, rounds, 0)) {
      URI uri = URI.create("http://127.0.0.1:" + collector.otlpAddress().getPort() + "/v1/traces");
      HttpClient http = HttpClient.newHttpClient();
      for (int round = 0; round < rounds; round++) {
        List<byte[]> bodies = bodies(requests, round);
        long before = collector.correlator().stats().joined();
        double seconds = post(http, uri, bodies);
        report(round, bodies, collector.correlator().stats().joined() - before, seconds);
      }
    }
  }

  private static void secure(int requests, int rounds) throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("klat-ingest-bench");
    dev.klat.testsupport.tls.TestPki pki = dev.klat.testsupport.tls.TestPki.create(dir, "bench-ca");
    dev.klat.testsupport.tls.TestPki.Issued cert =
        pki.leaf("localhost").server().fileName("collector").issue();
    java.nio.file.Path tokens = dir.resolve("tokens");
    String token = "bench-" + Long.toHexString(new java.security.SecureRandom().nextLong());
    java.nio.file.Files.writeString(tokens, "bench=" + token + "\n");
    Map<String, String> secured = new java.util.HashMap<>(settings(requests, rounds, 0));
    secured.put("tls.cert-file", cert.certificatePem().toString());
    secured.put("tls.key-file", cert.keyPem().toString());
    secured.put("otlp.auth-tokens-file", tokens.toString());
    try (Collector plain = Collector.start(CollectorConfig.of(settings(requests, rounds, 0)));
        Collector secure = Collector.start(CollectorConfig.of(secured))) {
      URI plainUri = URI.create("http://127.0.0.1:" + plain.otlpAddress().getPort() + "/v1/traces");
      URI secureUri =
          URI.create("https://127.0.0.1:" + secure.otlpAddress().getPort() + "/v1/traces");
      HttpClient plainHttp = HttpClient.newHttpClient();
      HttpClient secureHttp =
          HttpClient.newBuilder()
              .sslContext(dev.klat.collector.security.TlsClients.context(pki, null))
              .build();
      List<Double> ratios = new ArrayList<>();
      List<Double> cpuRatios = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        List<byte[]> bodies = bodies(requests, round);
        double plainSeconds = 0;
        double secureSeconds = 0;
        long plainServerCpuNanos = 0;
        long secureServerCpuNanos = 0;
        List<Double> sliceRatios = new ArrayList<>();
        // Interleaved in slices of a few requests, in alternating order: on a shared machine the
        // speed drifts within a round, and both sides see the same drift. A round's ratio is the
        // median of its slices' ratios, so that a GC pause or another process landing on one
        // side's slice does not decide the round.
        for (int from = 0; from < bodies.size(); from += SLICE_REQUESTS) {
          List<byte[]> slice = bodies.subList(from, Math.min(bodies.size(), from + SLICE_REQUESTS));
          double p;
          double t;
          long before;
          if ((from / SLICE_REQUESTS) % 2 == 0) {
            before = ServerCpu.nanos();
            p = post(plainHttp, plainUri, slice, null);
            long middle = ServerCpu.nanos();
            t = post(secureHttp, secureUri, slice, "Bearer " + token);
            plainServerCpuNanos += middle - before;
            secureServerCpuNanos += ServerCpu.nanos() - middle;
          } else {
            before = ServerCpu.nanos();
            t = post(secureHttp, secureUri, slice, "Bearer " + token);
            long middle = ServerCpu.nanos();
            p = post(plainHttp, plainUri, slice, null);
            secureServerCpuNanos += middle - before;
            plainServerCpuNanos += ServerCpu.nanos() - middle;
          }
          plainSeconds += p;
          secureSeconds += t;
          sliceRatios.add(p / t);
        }
        double joins = (double) requests * PER_REQUEST;
        java.util.Collections.sort(sliceRatios);
        double ratio = sliceRatios.get(sliceRatios.size() / 2);
        double cpuRatio = (double) plainServerCpuNanos / secureServerCpuNanos;
        System.out.printf(
            Locale.ROOT,
            "round %d: plain %.0f joins/s, TLS and token %.0f joins/s, median ratio of %d slices"
                + " %.3f; collector CPU per join plain %.0f ns, TLS and token %.0f ns, ratio %.3f%n",
            round,
            joins / plainSeconds,
            joins / secureSeconds,
            sliceRatios.size(),
            ratio,
            plainServerCpuNanos / joins,
            secureServerCpuNanos / joins,
            cpuRatio);
        if (round >= SECURE_WARM_UP_ROUNDS) {
          ratios.add(ratio);
          cpuRatios.add(cpuRatio);
        }
      }
      printRatio(
          "TLS and token over plain, collector joins per CPU second (the sender's threads excluded)",
          cpuRatios,
          rounds);
      printRatio("TLS and token over plain, OTLP/HTTP joins/s", ratios, rounds);
    }
  }

  private static void printRatio(String what, List<Double> ratios, int rounds) {
    if (ratios.size() < 2) {
      return;
    }
    double mean = ratios.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    double variance =
        ratios.stream().mapToDouble(r -> (r - mean) * (r - mean)).sum() / (ratios.size() - 1);
    double half = studentT95(ratios.size() - 1) * Math.sqrt(variance / ratios.size());
    System.out.printf(
        Locale.ROOT,
        "%s: %.3f (95%% interval %.3f to %.3f, rounds %d to %d)%n",
        what,
        mean,
        mean - half,
        mean + half,
        SECURE_WARM_UP_ROUNDS,
        rounds - 1);
  }

  /**
   * The CPU time of the collectors' threads in this JVM: every thread but the sender's (the main
   * thread and the JDK HTTP client's), so that the TLS work of the client, which in production runs
   * in the agents' processes, is not charged to the collector.
   */
  private static final class ServerCpu {
    private static final java.lang.management.ThreadMXBean THREADS =
        ManagementFactory.getThreadMXBean();

    static long nanos() {
      long total = 0;
      for (java.lang.management.ThreadInfo info :
          THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
        if (info == null) {
          continue;
        }
        String name = info.getThreadName();
        if (name.equals("main") || name.startsWith("HttpClient")) {
          continue;
        }
        long cpu = THREADS.getThreadCpuTime(info.getThreadId());
        if (cpu > 0) {
          total += cpu;
        }
      }
      return total;
    }
  }

  private static final int SLICE_REQUESTS = 5;

  // The TLS path has its own code to compile: two rounds, not one, before the ratios count.
  private static final int SECURE_WARM_UP_ROUNDS = 2;

  // Two-sided 95% quantiles of Student's t for 1 to 10 degrees of freedom, then the normal's.
  private static double studentT95(int degrees) {
    double[] t = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
    return degrees <= t.length ? t[degrees - 1] : 1.96;
  }

  private static void server(int requests, int rounds, int port) throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (Collector collector = startCollector(requests, rounds, port)) {
      System.out.printf(
          "server: OTLP/HTTP on port %d, admin on %d, waiting for %d rounds of %d records%n",
          collector.otlpAddress().getPort(), port + 1, rounds, requests * PER_REQUEST);
      long perRound = (long) requests * PER_REQUEST;
      long cpuBeforeNanos = os.getProcessCpuTime();
      long allocatedBefore = threads.getTotalThreadAllocatedBytes();
      long gcBeforeMs = gcMillis();
      for (int round = 0; round < rounds; round++) {
        // Polled, not signalled: a few wake-ups a second cost the measured core nothing to speak
        // of, and the collector stays exactly as it runs in production.
        while (collector.correlator().stats().joined() < perRound * (round + 1)) {
          Thread.sleep(100);
        }
        long cpuNanos = os.getProcessCpuTime();
        long allocated = threads.getTotalThreadAllocatedBytes();
        long gcMs = gcMillis();
        // CPU time and bytes allocated are steadier than the client's clock on a shared machine.
        System.out.printf(
            Locale.ROOT,
            "server round %d: %d joins, %.2f s of CPU = %.0f ns of CPU per join, %.0f bytes"
                + " allocated per join, %d ms in GC%n",
            round,
            perRound,
            (cpuNanos - cpuBeforeNanos) / 1e9,
            (cpuNanos - cpuBeforeNanos) / (double) perRound,
            (allocated - allocatedBefore) / (double) perRound,
            gcMs - gcBeforeMs);
        cpuBeforeNanos = cpuNanos;
        allocatedBefore = allocated;
        gcBeforeMs = gcMs;
      }
    }
  }

  private static long gcMillis() {
    long ms = 0;
    for (java.lang.management.GarbageCollectorMXBean gc :
        ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

  private static void client(int requests, int rounds, int port) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + port + "/v1/traces");
    URI stats = URI.create("http://127.0.0.1:" + (port + 1) + "/api/stats");
    HttpClient http = HttpClient.newHttpClient();
    for (int round = 0; round < rounds; round++) {
      List<byte[]> bodies = bodies(requests, round);
      long before = joined(http, stats);
      double seconds = post(http, uri, bodies);
      report(round, bodies, joined(http, stats) - before, seconds);
    }
  }

  // A joined record stays in the table for its window, in case another group consumes it too:
  // room for every round, so that no request meets a full table.
  private static Collector startCollector(int requests, int rounds, int port) throws Exception {
    return Collector.start(CollectorConfig.of(settings(requests, rounds, port)));
  }

  private static Map<String, String> settings(int requests, int rounds, int port) {
    return Map.of(
        "otlp.http.port",
        Integer.toString(port),
        "otlp.grpc.enabled",
        "false",
        "admin.port",
        port == 0 ? "0" : Integer.toString(port + 1),
        "join.max-pending-records",
        Long.toString((long) rounds * requests * PER_REQUEST + 1));
  }

  private static double post(HttpClient http, URI uri, List<byte[]> bodies) throws Exception {
    return post(http, uri, bodies, null);
  }

  private static double post(HttpClient http, URI uri, List<byte[]> bodies, String authorization)
      throws Exception {
    long startNanos = System.nanoTime();
    for (byte[] body : bodies) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(uri)
              .header("Content-Type", "application/x-protobuf")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      if (authorization != null) {
        request.header("Authorization", authorization);
      }
      HttpResponse<Void> r = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("HTTP " + r.statusCode());
      }
    }
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static long joined(HttpClient http, URI stats) throws Exception {
    String body =
        http.send(HttpRequest.newBuilder(stats).build(), HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher m = JOINED.matcher(body);
    if (!m.find()) {
      throw new IllegalStateException("no join count in " + body);
    }
    return Long.parseLong(m.group(1));
  }

  // The first line's format is what the benchmark suite (BenchSuite) reads.
  private static void report(int round, List<byte[]> bodies, long joined, double seconds) {
    System.out.printf(
        Locale.ROOT,
        "%d requests of %d records (%.0f KiB each): %d joins in %.2f s = %.0f joins/s (round %d)%n",
        bodies.size(),
        PER_REQUEST,
        bodies.get(0).length / 1024.0,
        joined,
        seconds,
        joined / seconds,
        round);
  }

  /** The request bodies of one round; also {@code DecodeBench}'s input. */
  public static List<byte[]> bodies(int requests, int round) {
    List<byte[]> bodies = new ArrayList<>();
    for (int r = 0; r < requests; r++) {
      ScopeSpans.Builder scope = ScopeSpans.newBuilder();
      for (int i = 0; i < PER_REQUEST; i++) {
        long offset = ((long) round * requests + r) * PER_REQUEST + i;
        long s = BASE_NANOS + offset * 10_000;
        ByteString trace = id(offset + 1, offset + 7);
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(trace)
                .setSpanId(id(2 * offset + 1))
                .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "0"))
                .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
                .addAttributes(num(SpanAttributes.SEND_TIME.name(), s))
                .addAttributes(num(SpanAttributes.DRAIN_TIME.name(), s + 1_000_000))
                .addAttributes(num(SpanAttributes.ACK_TIME.name(), s + 5_000_000))
                .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x11)));
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(trace)
                .setSpanId(id(2 * offset + 2))
                .setParentSpanId(id(2 * offset + 1))
                .setKind(Span.SpanKind.SPAN_KIND_CONSUMER)
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_NAME.name(), "orders"))
                .addAttributes(str(SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name(), "0"))
                .addAttributes(num(SpanAttributes.MESSAGING_KAFKA_OFFSET.name(), offset))
                .addAttributes(str(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name(), "g"))
                .addAttributes(num(SpanAttributes.FETCH_REQUEST_TIME.name(), s + 2_000_000))
                .addAttributes(num(SpanAttributes.FETCH_RESPONSE_TIME.name(), s + 6_000_000))
                .addAttributes(num(SpanAttributes.POLL_TIME.name(), s + 7_000_000))
                .addAttributes(num(SpanAttributes.INSTANCE_ID.name(), 0x22)));
      }
      bodies.add(
          ExportTraceServiceRequest.newBuilder()
              .addResourceSpans(
                  ResourceSpans.newBuilder()
                      .setResource(Resource.newBuilder())
                      .addScopeSpans(scope))
              .build()
              .toByteArray());
    }
    return bodies;
  }
}
