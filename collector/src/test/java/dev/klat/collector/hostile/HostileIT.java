package dev.klat.collector.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The collector against hostile clients: a real collector process with a 256 MiB heap, attacked
 * while an honest agent streams real OTLP beside the attacks. It must keep serving: alive, {@code
 * /healthz} and {@code /readyz} answering, {@code /metrics} within its size budget ({@code
 * metrics.max-bytes}), every honest breakdown counted. The transport attacks ({@link
 * TransportAttacks}) and the data attacks ({@link DataAttacks}: label floods, 64 KB topic names,
 * 40,000 groups a record, probe partitions, a forged clock pair) run at once. Short by default
 * (about 30 s, {@code otlp.read-timeout} 2 s); {@code -Dhostile.long=true} runs two minutes of
 * attacks with the default read timeout and heavier attacks. Commands in docs/security.md.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileIT {
  static final boolean LONG = TransportAttacks.LONG;
  static final String READ_TIMEOUT = LONG ? "10s" : "2s";
  static final long READ_TIMEOUT_MILLIS = LONG ? 10_000 : 2_000;
  static final long ATTACK_MILLIS = LONG ? 120_000 : 12_000;
  // The collector's metrics.max-bytes here: small, so that the label floods reach it.
  static final int METRICS_MAX_BYTES = 1 << 20;
  private static final String PROTOBUF = "application/x-protobuf";

  static HostileCollector collector;

  /** Every attack the suite runs at once, by name. */
  static Map<String, Attack> attacks() {
    Map<String, Attack> attacks = new LinkedHashMap<>();
    attacks.put("empty-objects-json", TransportAttacks::emptyObjectsJson);
    attacks.put("slow-sockets", TransportAttacks::slowSockets);
    attacks.put("hanging-grpc-calls", TransportAttacks::hangingGrpcCalls);
    attacks.put("oversized-bodies", TransportAttacks::oversizedBodies);
    attacks.put("gzip-bombs", TransportAttacks::gzipBombs);
    // The data attacks: bodies that decode well and would fill the labels and tables.
    attacks.put(
        "many-topics",
        Attack.posting(
            "many-topics",
            "/v1/metrics",
            PROTOBUF,
            () -> DataAttacks.metricsOfManyTopics(20_000, now())));
    attacks.put(
        "many-leaders",
        Attack.posting(
            "many-leaders",
            "/v1/traces",
            PROTOBUF,
            () -> DataAttacks.tracesOfManyLeaders(5_000, now())));
    attacks.put(
        "long-topics",
        Attack.posting(
            "long-topics",
            "/v1/traces",
            PROTOBUF,
            () -> DataAttacks.tracesOfLongTopics(100, 64 * 1024, now())));
    attacks.put(
        "many-groups",
        Attack.posting(
            "many-groups",
            "/v1/traces",
            PROTOBUF,
            () -> DataAttacks.tracesOfManyGroups(40_000, now())));
    attacks.put(
        "many-probe-partitions",
        Attack.posting(
            "many-probe-partitions",
            "/v1/logs",
            PROTOBUF,
            () -> DataAttacks.probeLogsOfManyPartitions("flood", 20_000, now())));
    attacks.put(
        "forged-clock",
        Attack.posting(
            "forged-clock",
            "/v1/traces",
            PROTOBUF,
            () -> DataAttacks.tracesOfForgedClockPair(now())));
    return attacks;
  }

  @BeforeAll
  static void start() throws Exception {
    collector =
        HostileCollector.start(
            "--otlp.read-timeout=" + READ_TIMEOUT, "--metrics.max-bytes=" + METRICS_MAX_BYTES);
  }

  @AfterAll
  static void stop() throws Exception {
    if (collector != null) {
      collector.close();
    }
  }

  @Test
  @Order(1)
  void slowSendersNeitherHoldSlotsNorDelayHonestPosts() throws Exception {
    Outcomes log = new Outcomes();
    long rejectedBefore = collector.stat("requestsRejected.read-timeout");
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * READ_TIMEOUT_MILLIS + 1_000);
    Thread slow = run("slow-sockets", TransportAttacks::slowSockets, until, log);
    Thread.sleep(500);
    // Four sockets that each send a byte every 5 s once took every decode slot: every honest
    // POST got 503. Now each is answered at once, on its first attempt.
    HonestStream honest = new HonestStream(collector, 6, 100, 200, log);
    for (int i = 0; i < 6; i++) {
      long startNanos = System.nanoTime();
      assertThat(honest.post(honestBody(i))).as(log.toString()).isEqualTo(200);
      assertThat(System.nanoTime() - startNanos)
          .as("honest POST answered within 2 s")
          .isLessThan(TimeUnit.SECONDS.toNanos(2));
      Thread.sleep(200);
    }
    slow.join();
    assertThat(log.count("slow-socket cut off")).as(log.toString()).isGreaterThanOrEqualTo(4);
    assertThat(collector.stat("requestsRejected.read-timeout") - rejectedBefore)
        .isGreaterThanOrEqualTo(4);
  }

  private static byte[] honestBody(int i) {
    return dev.klat.collector.IngestBench.bodies(1, 100 + i).get(0);
  }

  @Test
  @Order(2)
  void everyAttackAtOnceLeavesTheHonestStreamWhole() throws Exception {
    Outcomes log = new Outcomes();
    long honestBefore = honestBreakdowns();
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ATTACK_MILLIS);
    List<Thread> threads = new ArrayList<>();
    attacks().forEach((name, attack) -> threads.add(run(name, attack, until, log)));
    HonestStream honest =
        new HonestStream(collector, LONG ? 60 : 10, 1000, ATTACK_MILLIS / (LONG ? 60 : 10), log);
    Thread honestThread = new Thread(honest, "honest");
    honestThread.start();
    // While the attacks run: the collector answers its health and metrics.
    while (System.nanoTime() < until) {
      assertServing(log);
      Thread.sleep(1_000);
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(60));
    }
    honestThread.join(TimeUnit.SECONDS.toMillis(HonestStream.GIVE_UP_SECONDS * 2));
    assertServing(log);
    assertThat(honest.accepted()).as(log.toString()).isEqualTo(LONG ? 60 : 10);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (honestBreakdowns() - honestBefore < honest.pairs() && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    // Counted by the honest stream's own topic and group: the data attacks join records of their
    // own (other groups, other offsets), which the collector's total would mix in.
    assertThat(honestBreakdowns() - honestBefore).as(log.toString()).isEqualTo(honest.pairs());
    // The attacks were refused where they should be, and counted.
    assertThat(log.count("empty-spans 200")).as(log.toString()).isPositive();
    assertThat(collector.stat("requestsRejected.too-large")).as(log.toString()).isPositive();
    assertThat(collector.stat("requestsRejected.receiving-full")).as(log.toString()).isPositive();
    assertThat(collector.stat("requestsRejected.read-timeout")).as(log.toString()).isPositive();
    // The data attacks were folded, refused or evicted, each where docs/security.md says.
    assertThat(collector.stat("metricPointsFolded")).as(log.toString()).isPositive();
    assertThat(collector.stat("brokersFolded")).as(log.toString()).isPositive();
    assertThat(collector.stat("spansRejected.topic-name")).as(log.toString()).isPositive();
    assertThat(collector.stat("consumerGroupsRefused")).as(log.toString()).isPositive();
    assertThat(collector.stat("implausibleClockBounds")).as(log.toString()).isPositive();
    assertThat(collector.stat("probePartitionsEvicted")).as(log.toString()).isPositive();
    System.out.println("hostile outcomes: " + log + "\n" + collector.admin("/api/stats").body());
  }

  @Test
  @Order(3)
  void callsThatNeverFinishAreCutOffAndHonestCallsAnswered() throws Exception {
    Outcomes log = new Outcomes();
    // 22 calls on one connection: as many as the receiving budget holds (64 MiB in bodies of 16
    // MiB: 4) are held, each cut off at the read timeout, which frees its place: the calls opened
    // again, each on a new connection, are then held in turn. Three rounds take three read
    // timeouts once the first call is held; the deadline leaves a loaded machine's start-up room.
    int threeRounds = 3 * 4;
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(6 * READ_TIMEOUT_MILLIS + 8_000);
    TransportAttacks.hangingGrpcCalls(collector, until, log, threeRounds);
    assertThat(log.count("hanging-grpc DEADLINE_EXCEEDED"))
        .as(log.toString())
        .isGreaterThanOrEqualTo(threeRounds);
    io.grpc.ManagedChannel channel =
        io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress(
                "127.0.0.1", collector.grpcPort)
            .usePlaintext()
            .build();
    try {
      assertThat(TransportAttacks.export(channel, new byte[0])).isEqualTo(io.grpc.Status.Code.OK);
    } finally {
      channel.shutdownNow();
    }
    assertServing(log);
  }

  @Test
  @Order(4)
  void oversizedBodiesAndGzipBombsAreRefusedWithoutBeingHeld() throws Exception {
    Outcomes log = new Outcomes();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    TransportAttacks.oversizedBodies(collector, until, log);
    TransportAttacks.gzipBombs(collector, until, log);
    // Alone, each reaches its limit: 413, the announced one before a byte of it is read.
    assertThat(log.count("oversized 413")).as(log.toString()).isEqualTo(LONG ? 20 : 2);
    assertThat(log.count("oversized-chunked 413")).as(log.toString()).isEqualTo(LONG ? 20 : 2);
    assertThat(log.count("gzip-bomb 413")).as(log.toString()).isEqualTo(LONG ? 20 : 3);
    assertServing(log);
  }

  private static void assertServing(Outcomes log) throws Exception {
    assertThat(collector.process.isAlive()).as("collector alive; " + collector.logText()).isTrue();
    var health = collector.admin("/healthz");
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    var metrics = collector.admin("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body().length()).as("/metrics size").isLessThanOrEqualTo(METRICS_MAX_BYTES);
    var ready = collector.admin("/readyz");
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
  }

  /** The breakdowns of the honest stream's topic and group (IngestBench's) in the last hour. */
  private static long honestBreakdowns() throws Exception {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"count\":(\\d+)")
            .matcher(collector.admin("/api/breakdown?topic=orders&group=g&window=1h").body());
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private static long now() {
    return System.currentTimeMillis() * 1_000_000L;
  }

  private static Thread run(String name, Attack attack, long until, Outcomes log) {
    Thread t =
        new Thread(
            () -> {
              try {
                attack.run(collector, until, log);
              } catch (Exception e) {
                log.add(name + " failed: " + e);
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
