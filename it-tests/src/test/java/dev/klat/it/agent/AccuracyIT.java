package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.kafka.cluster.TopicSpec.TimestampType;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The accuracy suite of issue 6: on three brokers (replication factor 3, {@code
 * min.insync.replicas=2}) with real agents and the collector reading the brokers' request metrics,
 * each case injects one known delay, and the segment it belongs to must grow as much as the
 * application's own end-to-end measurement grew, within 20% or 5 ms (whichever is larger) at p50
 * and p99, while the other segments stay within the same tolerance.
 *
 * <p>"Grew" is against control streams that run at the same time without the delay, so that the
 * load of the machine hits both alike: the delayed streams' topics are led by broker 1, the
 * controls' by broker 2, and network delays are set on broker 1's proxies only. Each case runs four
 * kinds of stream, each delayed and control: {@code acks=all} and {@code acks=1}, on a {@code
 * CreateTime} and on a {@code LogAppendTime} topic. The producers reach the brokers through a
 * delaying proxy per broker on a second client listener, the followers reach each leader through a
 * delaying proxy on its replication listener, the consumers connect directly. A table of every
 * figure goes to {@code target/accuracy/accuracy.md}.
 */
@EnabledIfSystemProperty(
    named = "klat.accuracy",
    matches = "true",
    disabledReason =
        "opt-in (-Dklat.accuracy=true): on a 2-core machine its streams' p99 spread exceeds the"
            + " tolerance, see docs/accuracy.md")
class AccuracyIT {

  private static final String CLIENTS = "4.4.0";
  // The p99 of 1,200 records is their 12th slowest. With 400 (the 4th), two control streams of
  // the same acks differed by up to 11.4 ms in one segment's p99 and 16.4 ms in the application's
  // (run of 2026-11-23 04:54 UTC), more than the tolerance.
  private static final int RECORDS = 1_200;
  private static final int PER_SECOND = 20;
  // The produce case needs each record in a batch of its own (linger.ms=100), the commit case each
  // acks=all request answered before the next is sent: both run slower, for longer.
  private static final int LOW_PER_SECOND = 10;
  private static final int WARMUP_SECONDS = 8;
  private static final long MS = 1_000_000L;
  private static final long TOLERANCE_FLOOR_NANOS = 5 * MS;
  private static final double TOLERANCE_RATIO = 0.2;
  private static final int DELAYED_LEADER = 1;
  private static final int CONTROL_LEADER = 2;
  private static final List<String> SEGMENTS =
      List.of("produce", "publish", "commit", "catch-up", "fetch");
  private static final String SKEW = "clock-skew";
  private static final Duration CONSUMER_CLOCK_SKEW = Duration.ofMillis(250);

  // -Dklat.accuracy.probe=true: every broker runs the broker probe, and L and H are measured
  // (quality exact); without it they are estimated from the brokers' request metrics.
  private static final boolean PROBE = Boolean.getBoolean("klat.accuracy.probe");

  private static final ProxiedPaths paths = new ProxiedPaths();
  private static KafkaCluster cluster;
  private static Process collector;
  private static int otlpPort;
  private static int adminPort;

  @BeforeAll
  static void start() throws Exception {
    otlpPort = freePort();
    adminPort = freePort();
    KafkaClusterSpec.Builder spec =
        KafkaClusterSpec.brokers(3)
            .name("accuracy")
            .brokerProperty("min.insync.replicas", "2")
            .brokerProperty("default.replication.factor", "3")
            .addressInterceptor(paths.interceptor());
    if (PROBE) {
      spec.brokerProbe(
          Paths.get(System.getProperty("klat.broker-probe.jar")), "http://127.0.0.1:" + otlpPort);
    }
    cluster = spec.start();
    collector = startCollector();
  }

  @AfterAll
  static void stop() throws Exception {
    if (collector != null) {
      collector.destroy();
      if (!collector.waitFor(10, TimeUnit.SECONDS)) {
        collector.destroyForcibly();
      }
    }
    if (cluster != null) {
      cluster.close();
    }
    paths.close();
  }

  /** A kind of stream: its {@code acks} and timestamp type. */
  record Kind(String name, String acks, TimestampType timestampType) {}

  // Every JVM of the suite (brokers, applications, collector) compiles with C1 only: on two cores,
  // C2's compiler threads took a fifth of a core per JVM for over a minute after start, and the
  // streams' p99 showed it. This suite measures where time is attributed, not how fast code runs.
  private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

  private static List<String> appJvmOptions(String endpoint, String samplingProbability) {
    List<String> options = new ArrayList<>(AppJvm.agentOptions(endpoint, samplingProbability));
    options.add(C1_ONLY);
    // -Dklat.accuracy.debug=true: each application prints every record slower than 30 ms (SLOW
    // topic index millis), to see when in a run the tail happened.
    options.add("-Daccuracy.debug=" + Boolean.getBoolean("klat.accuracy.debug"));
    return options;
  }

  private static final List<Kind> KINDS =
      List.of(
          new Kind("all-ct", "all", TimestampType.CREATE_TIME),
          new Kind("one-ct", "1", TimestampType.CREATE_TIME),
          new Kind("all-lat", "all", TimestampType.LOG_APPEND_TIME),
          new Kind("one-lat", "1", TimestampType.LOG_APPEND_TIME));

  /** Client settings of a stream: where the delays of produce, catch-up and fetch are set. */
  record Clients(
      String lingerMs,
      String fetchMinBytes,
      String fetchMaxWaitMs,
      long sleepMs,
      String groupProtocol,
      boolean sendAfterAck) {
    static final Clients DEFAULT = new Clients("0", "1", "500", 0, "classic", false);

    /** The same clients without the delay, for the control streams. */
    Clients control() {
      return new Clients(
          DEFAULT.lingerMs,
          DEFAULT.fetchMinBytes,
          DEFAULT.fetchMaxWaitMs,
          0,
          groupProtocol,
          sendAfterAck);
    }

    String spec(String topic, String acks) {
      return String.join(
          ":",
          topic,
          acks,
          lingerMs,
          fetchMinBytes,
          fetchMaxWaitMs,
          Long.toString(sleepMs),
          groupProtocol,
          Boolean.toString(sendAfterAck));
    }
  }

  /** The quantiles of one stream, nanoseconds: the application's and klat's. */
  record Measured(
      long appP50,
      long appP99,
      int count,
      Map<String, long[]> segments,
      long[] e2e,
      Map<String, Integer> exactCounts) {
    long segment(String name, int quantile) {
      long[] q = segments.get(name);
      return q == null ? -1 : q[quantile];
    }

    long app(int quantile) {
      return quantile == 0 ? appP50 : appP99;
    }
  }

  /** The delayed and the control stream of one kind in one case. */
  record Pair(Measured delayed, Measured control) {}

  // The classic consumer reads a fetch response only when a thread polls its network client: the
  // application in poll(), or the heartbeat thread every retry.backoff.ms (100 ms by default). A
  // response that arrives while the application sleeps waits up to that long in the socket, and R,
  // measured where the response is read, is late by as much: that part of the sleep shows as
  // fetch. The new consumer's background thread reads responses as they come, so the catch-up
  // case runs on it, and this case checks the classic consumer's known bound.
  private static final String CATCH_UP_CLASSIC = "catch-up-classic";
  private static final long CLASSIC_READ_LAG_BOUND_NANOS = 100 * MS;

  // -Dklat.accuracy.cases=publish,fetch runs some cases only, for investigating one.
  private static final List<String> CASES =
      List.of(
          System.getProperty(
                  "klat.accuracy.cases",
                  "produce,publish,commit,catch-up," + CATCH_UP_CLASSIC + ",fetch," + SKEW)
              .split(","));

  @Test
  void eachInjectedDelayShowsUpInItsOwnSegment() throws Exception {
    Map<String, Map<String, Pair>> results = new LinkedHashMap<>();
    if (CASES.contains("produce")) {
      results.put(
          "produce",
          runCase("produce", new Clients("100", "1", "500", 0, "classic", false), LOW_PER_SECOND));
    }
    if (CASES.contains("publish")) {
      paths.toLeader(DELAYED_LEADER).setDelay(Duration.ofMillis(50));
      results.put("publish", runCase("publish", Clients.DEFAULT));
      paths.toLeader(DELAYED_LEADER).setDelay(Duration.ZERO);
    }
    // Each record is sent once the previous one is acknowledged: a request sent sooner would wait
    // unread behind it on the connection, before its append, which is publish, not commit (the
    // LogAppendTime streams showed 115 ms of publish at p99 when records were sent on a fixed
    // rate). That is a real effect of slow replication, but not the one this case injects.
    if (CASES.contains("commit")) {
      paths.toLeaderForFollowers(DELAYED_LEADER).setDelay(Duration.ofMillis(20));
      results.put(
          "commit",
          runCase("commit", new Clients("0", "1", "500", 0, "classic", true), LOW_PER_SECOND));
      paths.toLeaderForFollowers(DELAYED_LEADER).setDelay(Duration.ZERO);
    }
    if (CASES.contains("catch-up")) {
      results.put(
          "catch-up", runCase("catch-up", new Clients("0", "1", "500", 200, "consumer", false)));
    }
    if (CASES.contains(CATCH_UP_CLASSIC)) {
      results.put(
          CATCH_UP_CLASSIC,
          runCase(CATCH_UP_CLASSIC, new Clients("0", "1", "500", 200, "classic", false)));
    }
    if (CASES.contains("fetch")) {
      results.put(
          "fetch", runCase("fetch", new Clients("0", "10000000", "300", 0, "classic", false)));
    }
    if (CASES.contains(SKEW)) {
      results.put(SKEW, runSkewCase());
    }
    writeTable(results);

    SoftAssertions softly = new SoftAssertions();
    for (Map.Entry<String, Map<String, Pair>> c : results.entrySet()) {
      String caseName = c.getKey();
      boolean classic = caseName.equals(CATCH_UP_CLASSIC);
      String target = classic ? "catch-up" : caseName;
      for (Kind kind : KINDS) {
        Pair pair = c.getValue().get(kind.name());
        String where = caseName + "/" + kind.name();
        for (Measured m : List.of(pair.delayed(), pair.control())) {
          softly
              .assertThat(m.count())
              .as(where + ": joined breakdowns")
              .isGreaterThanOrEqualTo(RECORDS * 9 / 10);
          if (PROBE) {
            for (String measured : List.of("publish", "commit")) {
              softly
                  .assertThat(m.exactCounts().getOrDefault(measured, 0))
                  .as("%s: breakdowns whose %s the broker probe measured", where, measured)
                  .isGreaterThanOrEqualTo(m.count() * 95 / 100);
            }
          }
        }
        for (int q = 0; q < 2; q++) {
          String quantile = q == 0 ? "p50" : "p99";
          boolean skew = caseName.equals(SKEW);
          if (!skew) {
            // klat's end-to-end of each record is P - S on the agents' clocks, the application's
            // is taken around send() and poll(): the same records, so the same quantiles.
            for (Measured m : List.of(pair.delayed(), pair.control())) {
              softly
                  .assertThat(Math.abs(m.e2e()[q] - m.app(q)))
                  .as(
                      "%s: klat's end-to-end %s %.1f ms, the application's %.1f ms",
                      where, quantile, m.e2e()[q] / 1e6, m.app(q) / 1e6)
                  .isLessThanOrEqualTo(TOLERANCE_FLOOR_NANOS);
            }
            long appGrowth = pair.delayed().app(q) - pair.control().app(q);
            softly
                .assertThat(appGrowth)
                .as(where + ": the injected delay grew the application's " + quantile)
                .isGreaterThan(q == 0 ? 20 * MS : 0);
            long segmentGrowth = growth(pair, target, q);
            long tolerance = noisyTolerance(c.getValue(), kind, target, q, appGrowth);
            if (classic) {
              // Up to the classic consumer's read lag of the sleep shows as fetch, the rest as
              // catch-up. (Catch-up's and fetch's quantiles cannot be added: the p99 of a sum is
              // not the sum of the p99s.)
              long fetchGrowth = growth(pair, "fetch", q);
              softly
                  .assertThat(fetchGrowth)
                  .as(
                      "%s: fetch grew %.1f ms at %s, at most the classic consumer's read lag",
                      where, fetchGrowth / 1e6, quantile)
                  .isLessThanOrEqualTo(
                      CLASSIC_READ_LAG_BOUND_NANOS
                          + noisyTolerance(c.getValue(), kind, "fetch", q, 0));
              softly
                  .assertThat(segmentGrowth)
                  .as(
                      "%s: catch-up grew %.1f ms at %s, the application's end-to-end %.1f ms less"
                          + " at most the read lag",
                      where, segmentGrowth / 1e6, quantile, appGrowth / 1e6)
                  .isBetween(
                      appGrowth - CLASSIC_READ_LAG_BOUND_NANOS - tolerance, appGrowth + tolerance);
            } else {
              softly
                  .assertThat(Math.abs(segmentGrowth - appGrowth))
                  .as(
                      "%s: %s grew %.1f ms at %s, the application's end-to-end %.1f ms",
                      where, target, segmentGrowth / 1e6, quantile, appGrowth / 1e6)
                  .isLessThanOrEqualTo(tolerance);
            }
          }
          if (caseName.equals("catch-up")) {
            // The delayed consumer is behind: it asks for records already committed (F after H),
            // so by definition its fetch is the whole round trip R - F, not the control's R - H.
            long fetch = pair.delayed().segment("fetch", q);
            long roundTrip = pair.delayed().segment("fetch-round-trip", q);
            softly
                .assertThat(Math.abs(fetch - roundTrip))
                .as(
                    "%s: a consumer that is behind fetches for its round trip: fetch %s %.1f ms,"
                        + " R - F %.1f ms",
                    where, quantile, fetch / 1e6, roundTrip / 1e6)
                .isLessThanOrEqualTo(tolerance(roundTrip));
          }
          for (String other : SEGMENTS) {
            if (other.equals(target)
                || (classic && other.equals("fetch"))
                || (caseName.equals("catch-up") && other.equals("fetch"))) {
              continue;
            }
            long control = pair.control().segment(other, q);
            long delayed = pair.delayed().segment(other, q);
            softly
                .assertThat(Math.abs(delayed - control))
                .as(
                    "%s: %s %s stays put (%.1f ms in the control stream, %.1f ms here)",
                    where, other, quantile, control / 1e6, delayed / 1e6)
                .isLessThanOrEqualTo(noisyTolerance(c.getValue(), kind, other, q, control));
          }
        }
      }
    }
    if (CASES.contains(SKEW)) {
      softly
          .assertThat(skewOffsetsFoundNanos)
          .as("the collector's producer-to-consumer clock offsets: %s", skewClocks)
          .isNotEmpty()
          .allSatisfy(
              offset ->
                  assertThat(Math.abs(offset - CONSUMER_CLOCK_SKEW.toNanos()))
                      .isLessThanOrEqualTo(TOLERANCE_FLOOR_NANOS));
    }
    softly.assertAll();
  }

  private static long tolerance(long reference) {
    return Math.max(TOLERANCE_FLOOR_NANOS, Math.round(Math.abs(reference) * TOLERANCE_RATIO));
  }

  private static long growth(Pair pair, String segment, int quantile) {
    return pair.delayed().segment(segment, quantile) - pair.control().segment(segment, quantile);
  }

  /**
   * The tolerance of the issue (20% of the reference or 5 ms), at p99 widened to the spread of two
   * streams that should be alike: the control streams of the same {@code acks} on the two timestamp
   * types, in the same case, at the same moment. On two cores shared by three brokers, the
   * collector and the application, two such streams' p99 differ by several milliseconds (see {@link
   * #RECORDS}), and no comparison can be finer than that. Without the broker probe, publish and
   * commit are left out of the spread (the two timestamp types estimate them differently); with it,
   * both types measure them alike.
   */
  private static long noisyTolerance(
      Map<String, Pair> caseResults, Kind kind, String segment, int quantile, long reference) {
    long tolerance = tolerance(reference);
    if (quantile == 0 || (!PROBE && (segment.equals("publish") || segment.equals("commit")))) {
      return tolerance;
    }
    long fastest = Long.MAX_VALUE;
    long slowest = Long.MIN_VALUE;
    for (Kind like : KINDS) {
      if (like.acks().equals(kind.acks())) {
        long control = caseResults.get(like.name()).control().segment(segment, quantile);
        fastest = Math.min(fastest, control);
        slowest = Math.max(slowest, control);
      }
    }
    return Math.max(tolerance, slowest - fastest);
  }

  private static String topic(String caseName, Kind kind, boolean delayed) {
    return caseName + "-" + kind.name() + (delayed ? "" : "-control");
  }

  private static void createTopics(String caseName) {
    for (Kind kind : KINDS) {
      for (boolean delayed : new boolean[] {true, false}) {
        String topic = topic(caseName, kind, delayed);
        for (String name : List.of(topic, AccuracyApp.warmupTopic(topic))) {
          cluster.createTopic(
              TopicSpec.named(name)
                  .partitions(1)
                  .replicationFactor(3)
                  .minInsyncReplicas(2)
                  .preferredLeader(delayed ? DELAYED_LEADER : CONTROL_LEADER)
                  .timestampType(kind.timestampType())
                  .build());
        }
      }
    }
  }

  // The run itself, the warm-up, and a minute for start, assignment and slow acknowledgements.
  private static Duration appTimeout(int perSecond) {
    return Duration.ofSeconds(RECORDS / perSecond + WARMUP_SECONDS + 60L);
  }

  private static List<String> commonArgs(String mode, int perSecond) {
    return new ArrayList<>(
        List.of(
            mode,
            cluster.secondClientBootstrapServers(),
            cluster.bootstrapServers(),
            Integer.toString(RECORDS / perSecond),
            Integer.toString(WARMUP_SECONDS),
            Integer.toString(perSecond)));
  }

  private Map<String, Pair> runCase(String caseName, Clients delayedClients) throws Exception {
    return runCase(caseName, delayedClients, PER_SECOND);
  }

  // At perSecond below PER_SECOND a case runs longer, for the same number of records.
  private Map<String, Pair> runCase(String caseName, Clients delayedClients, int perSecond)
      throws Exception {
    createTopics(caseName);
    List<String> args = commonArgs("both", perSecond);
    for (Kind kind : KINDS) {
      args.add(delayedClients.spec(topic(caseName, kind, true), kind.acks()));
      args.add(delayedClients.control().spec(topic(caseName, kind, false), kind.acks()));
    }
    AppJvm.Result app =
        AppJvm.start(
                CLIENTS,
                appJvmOptions(
                    "http://127.0.0.1:" + otlpPort,
                    System.getProperty("klat.accuracy.sampling", "1.0")),
                AccuracyApp.class,
                args.toArray(new String[0]))
            .await(appTimeout(perSecond));
    assertThat(app.exitCode()).as(app.output()).isZero();
    Map<String, Pair> measured = new LinkedHashMap<>();
    for (Kind kind : KINDS) {
      measured.put(
          kind.name(),
          new Pair(
              measure(app, topic(caseName, kind, true)),
              measure(app, topic(caseName, kind, false))));
    }
    return measured;
  }

  private static Measured measure(AppJvm.Result app, String topic) throws Exception {
    String[] line =
        app.output()
            .lines()
            .filter(l -> l.startsWith("STREAM " + topic + " "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no STREAM line for " + topic))
            .split(" ");
    return klat(topic, Long.parseLong(line[3]), Long.parseLong(line[4]));
  }

  private static final List<Long> skewOffsetsFoundNanos = new ArrayList<>();
  private static String skewClocks = "";

  // The delayed streams' producer and consumer in separate JVMs, the consumer's agent reading a
  // clock 250 ms ahead; the control streams in one JVM alongside.
  private Map<String, Pair> runSkewCase() throws Exception {
    createTopics(SKEW);
    List<String> skewed = new ArrayList<>();
    List<String> controls = commonArgs("both", PER_SECOND);
    for (Kind kind : KINDS) {
      skewed.add(Clients.DEFAULT.spec(topic(SKEW, kind, true), kind.acks()));
      controls.add(Clients.DEFAULT.spec(topic(SKEW, kind, false), kind.acks()));
    }
    String endpoint = "http://127.0.0.1:" + otlpPort;
    List<String> consumerAgent = new ArrayList<>(appJvmOptions(endpoint, "1.0"));
    consumerAgent.add("-Dklat.test.clock-offset=" + CONSUMER_CLOCK_SKEW.toMillis() + "ms");
    List<String> consumeArgs = commonArgs("consume", PER_SECOND);
    consumeArgs.addAll(skewed);
    AppJvm.Running consumer =
        AppJvm.start(CLIENTS, consumerAgent, AccuracyApp.class, consumeArgs.toArray(new String[0]));
    consumer.awaitLine("ASSIGNED");
    List<String> produceArgs = commonArgs("produce", PER_SECOND);
    produceArgs.addAll(skewed);
    AppJvm.Running producer =
        AppJvm.start(
            CLIENTS,
            appJvmOptions(endpoint, "1.0"),
            AccuracyApp.class,
            produceArgs.toArray(new String[0]));
    AppJvm.Result control =
        AppJvm.start(
                CLIENTS,
                appJvmOptions(endpoint, "1.0"),
                AccuracyApp.class,
                controls.toArray(new String[0]))
            .await(appTimeout(PER_SECOND));
    assertThat(control.exitCode()).as(control.output()).isZero();
    AppJvm.Result produced = producer.await(appTimeout(PER_SECOND));
    assertThat(produced.exitCode()).as(produced.output()).isZero();
    AppJvm.Result consumed = consumer.await(appTimeout(PER_SECOND));
    assertThat(consumed.exitCode()).as(consumed.output()).isZero();
    Map<String, Pair> measured = new LinkedHashMap<>();
    for (Kind kind : KINDS) {
      measured.put(
          kind.name(),
          new Pair(
              klat(topic(SKEW, kind, true), -1, -1), measure(control, topic(SKEW, kind, false))));
    }
    // Every earlier case ran producer and consumer in one JVM, a single clock; the one pair of
    // hosts far apart is this case's producer and consumer.
    skewClocks = get("/api/clocks");
    Matcher offsets = Pattern.compile("\"offsetNanos\":(-?\\d+)").matcher(skewClocks);
    while (offsets.find()) {
      long offset = Long.parseLong(offsets.group(1));
      if (Math.abs(offset) > 50 * MS) {
        skewOffsetsFoundNanos.add(Math.abs(offset));
      }
    }
    return measured;
  }

  private static final Pattern SEGMENT =
      Pattern.compile(
          "\"([a-z+-]+)\":\\{\"count\":(\\d+),\"p50Seconds\":([-0-9.eE]+|null),\"p99Seconds\":([-0-9.eE]+|null),\"quality\":\\{\"exact\":(\\d+)");
  private static final Pattern E2E =
      Pattern.compile(
          "\"e2e\":\\{\"p50Seconds\":([-0-9.eE]+|null),\"p99Seconds\":([-0-9.eE]+|null)");

  private static Measured klat(String topic, long appP50, long appP99) throws Exception {
    int expected = RECORDS;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String body;
    int count;
    do {
      body = get("/api/breakdown?topic=" + topic + "&window=1h");
      Matcher m = Pattern.compile("\"windowSeconds\":[0-9.]+,\"count\":(\\d+)").matcher(body);
      count = m.find() ? Integer.parseInt(m.group(1)) : 0;
      if (count >= expected) {
        break;
      }
      Thread.sleep(500);
    } while (System.nanoTime() < deadline);
    Map<String, long[]> segments = new LinkedHashMap<>();
    Map<String, Integer> exact = new LinkedHashMap<>();
    int at = body.indexOf("\"segments\":");
    Matcher m = SEGMENT.matcher(at < 0 ? "" : body.substring(at));
    while (m.find()) {
      segments.put(m.group(1), new long[] {nanos(m.group(3)), nanos(m.group(4))});
      exact.put(m.group(1), Integer.parseInt(m.group(5)));
    }
    Matcher e = E2E.matcher(body);
    long[] e2e = e.find() ? new long[] {nanos(e.group(1)), nanos(e.group(2))} : new long[] {-1, -1};
    return new Measured(appP50, appP99, count, segments, e2e, exact);
  }

  private static long nanos(String seconds) {
    return seconds.equals("null") ? -1 : Math.round(Double.parseDouble(seconds) * 1e9);
  }

  private static void writeTable(Map<String, Map<String, Pair>> results) throws IOException {
    StringBuilder out = new StringBuilder();
    out.append("| case | stream | app e2e p50 / p99 | klat e2e p50 / p99 |");
    for (String s : SEGMENTS) {
      out.append(' ').append(s).append(" p50 / p99 |");
    }
    out.append(" breakdowns | publish / commit exact |\n|---|---|---|---|");
    out.append("---|".repeat(SEGMENTS.size())).append("---|---|\n");
    for (Map.Entry<String, Map<String, Pair>> c : results.entrySet()) {
      for (Map.Entry<String, Pair> s : c.getValue().entrySet()) {
        for (boolean delayed : new boolean[] {true, false}) {
          Measured m = delayed ? s.getValue().delayed() : s.getValue().control();
          out.append("| ").append(c.getKey()).append(" | ").append(s.getKey());
          out.append(delayed ? "" : " control").append(" | ");
          out.append(ms(m.appP50())).append(" / ").append(ms(m.appP99())).append(" | ");
          out.append(ms(m.e2e()[0])).append(" / ").append(ms(m.e2e()[1])).append(" |");
          for (String seg : SEGMENTS) {
            out.append(' ')
                .append(ms(m.segment(seg, 0)))
                .append(" / ")
                .append(ms(m.segment(seg, 1)))
                .append(" |");
          }
          out.append(' ').append(m.count()).append(" | ");
          out.append(m.exactCounts().getOrDefault("publish", 0)).append(" / ");
          out.append(m.exactCounts().getOrDefault("commit", 0)).append(" |\n");
        }
      }
    }
    out.insert(
        0,
        PROBE
            ? "With the broker probe on every broker.\n\n"
            : "Estimates only (no broker probe).\n\n");
    Path file = Paths.get("target", "accuracy", PROBE ? "accuracy-probe.md" : "accuracy.md");
    Files.createDirectories(file.getParent());
    Files.writeString(file, out.toString());
    System.out.println(out);
  }

  private static String ms(long nanos) {
    return nanos < 0 ? "-" : String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }

  private static Process startCollector() throws Exception {
    Path jar = Paths.get(System.getProperty("klat.collector.jar"));
    Path logs = Files.createDirectories(Paths.get("target", "app-logs"));
    String exporters =
        cluster.brokers().stream()
            .map(b -> b.nodeId() + "=" + b.metricsEndpoint())
            .collect(Collectors.joining(","));
    Process process =
        new ProcessBuilder(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                C1_ONLY,
                "-jar",
                jar.toString(),
                "--otlp.http.port=" + otlpPort,
                "--otlp.grpc.enabled=false",
                "--admin.port=" + adminPort,
                "--brokers.exporter=" + exporters,
                "--brokers.scrape-interval=1s")
            .redirectErrorStream(true)
            .redirectOutput(Files.createTempFile(logs, "accuracy-collector-", ".log").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        if (get("/healthz").startsWith("ok")) {
          return process;
        }
      } catch (IOException notYet) {
        // Still starting.
      }
      assertThat(process.isAlive()).as("collector exited").isTrue();
      assertThat(System.nanoTime()).as("collector not healthy in 60 s").isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static String get(String path) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection)
            URI.create("http://127.0.0.1:" + adminPort + path).toURL().openConnection();
    try (InputStream in = connection.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      connection.disconnect();
    }
  }

  private static int freePort() {
    return dev.klat.kafka.cluster.LoopbackPorts.free();
  }
}
