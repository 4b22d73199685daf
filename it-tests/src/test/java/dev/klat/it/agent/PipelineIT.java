package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.SpanAttributes;
import dev.klat.testsupport.JdkIndependent;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 45's pipeline on real brokers, built as users build theirs (docs/pipelines.md, "Measured"):
 * a producer writes {@code pipe-orders}; a consume-transform-produce loop on kafka-clients 2.8
 * (classic protocol, copies no headers) turns them into {@code pipe-enriched}; a Kafka Streams 4.3
 * application with {@code exactly_once_v2} into {@code pipe-invoices}; a spring-kafka listener
 * (Spring Boot 3) reads those {@code read_committed}. Three brokers with the broker probe; every
 * application with the agent, sampling every record; the collector in between.
 *
 * <p>One delay at a time, each in its own phase of {@code klat.pipeline.phase-seconds} (10 s in
 * CI), and per phase, from {@code GET /api/pipelines} over the phase: the pipeline's p99 tail names
 * the hop and segment that holds the delay, every chain passes the identity check, and the
 * pipeline's e2e p99 agrees with the application's own (the source's {@code send()} to the
 * listener's {@code poll()}, both on this host's clock, printed by the listener for every record)
 * within the accuracy suite's tolerance (20% or 5 ms, whichever is larger); the injected delay's
 * own figure where the injection fixes it (hop 1's processing):
 *
 * <ul>
 *   <li>baseline: the Streams transactions' wait shows in hop 3's commit ({@code parts.transaction}
 *       of the {@code read_committed} group), never in hop 2's (a plain producer's records);
 *   <li>the consume-transform-produce loop sleeps {@value #CTP_DELAY_MS} ms once a second before it
 *       produces: hop 1's processing;
 *   <li>the follower of {@code pipe-enriched} is frozen (SIGSTOP) {@value #PAUSE_MS} ms every
 *       {@value #PAUSE_EVERY_MS} ms: hop 2's publish or commit (the topic's other replica; no other
 *       partition, internal ones included, has a replica on that broker);
 *   <li>the listener sleeps {@value #CONSUMER_DELAY_MS} ms once a second: hop 3's catch-up.
 * </ul>
 *
 * <p>Beside it, all along, a fan-out loop (each input gives two records to one topic and one to
 * another) and a batching loop (one output per burst of {@value PipelineApp#BATCH_SIZE} inputs,
 * which one poll returns: the agent links a batch to its last poll's records): their pipelines
 * count each final record once and each input once in hop 1, and the batch outputs' producer spans
 * link their five inputs. The agents' own spans are read through a tee in front of the collector
 * ({@link OtlpReceiver#teeTo}): the link and transaction attributes are checked there too, so that
 * a failure names the side that broke.
 *
 * <p>CI's second pass (JDK 25, {@link JdkIndependent#leftToFirstPass()}) runs the baseline and the
 * processing delay only, about 26 s less. Those two already need from every application's agent on
 * that JDK each instant the pipeline is built from (the links, the transactions, every hop's
 * segments, e2e against the application's clock, an agent-measured figure against the injected
 * one), and from the probe its brokers' instants. The paused follower and the slow consumer add
 * only where the collector puts a delay it is given those instants, which the first pass checks; on
 * JDK 25 the probe's view of a paused follower is TailCaptureIT's and DemoIT's, a slow consumer's
 * catch-up ConsumerAgentIT's and DiagnosisIT's.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PipelineIT {

  static final int PHASE_SECONDS = Integer.getInteger("klat.pipeline.phase-seconds", 10);
  // After each phase, calm: the phase's last chains are exported and joined before the query.
  static final int SETTLE_SECONDS = 3;
  // A phase's window (by the time the collector joined a chain) starts this long after the phase:
  // a chain polled before the phase but joined inside its window counts for klat and not for the
  // application's own figure (polled inside the window). The join waits for every hop's spans; on
  // a loaded CI machine, right after start-up, that took over a second once (the baseline's p99:
  // 200.5 ms for klat against 155.4 ms for the application).
  static final int WINDOW_START_GAP_SECONDS = 3;
  // From the first chain that reached the listener: the applications' start-up backlog drains.
  static final int WARMUP_SECONDS = 5;
  static final long CTP_DELAY_MS = 300;
  static final long PAUSE_MS = 300;
  static final long PAUSE_EVERY_MS = 2_000;
  // The next burst comes BURST_EVERY_MS after the one the listener sleeps on: it waits the sleep
  // less that in catch-up.
  static final long CONSUMER_DELAY_MS = 600;
  static final int FAN_RECORDS = 100;
  static final int BATCH_RECORDS = 100;

  // The accuracy suite's tolerance (AccuracyIT): 20% or 5 ms, whichever is larger.
  static final double TOLERANCE_RATIO = 0.2;
  static final long TOLERANCE_FLOOR_MS = 5;

  private static final String CLIENTS_2_8 = "2.8.2";
  private static final String STREAMS = "4.3.1-streams";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void eachDelayIsPutOnItsHopAndSegment() throws Exception {
    long startedNanos = System.nanoTime();
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    String collectorEndpoint = "http://127.0.0.1:" + otlpPort;
    Process collector =
        CollectorEndToEndIT.startCollector(
            otlpPort, adminPort, "--otlp.grpc.enabled=false", "--join.window=5s");
    List<AppJvm.Running> apps = new ArrayList<>();
    SoftAssertions softly = new SoftAssertions();
    try (OtlpReceiver tee = OtlpReceiver.teeTo(collectorEndpoint);
        KafkaCluster cluster =
            KafkaClusterSpec.brokers(3)
                .name("pipeline")
                // One partition, one replica each, so that the frozen follower holds none.
                .brokerProperty("offsets.topic.num.partitions", "1")
                .brokerProperty("offsets.topic.replication.factor", "1")
                .brokerProperty("transaction.state.log.num.partitions", "1")
                .brokerProperty("transaction.state.log.replication.factor", "1")
                .brokerProperty("transaction.state.log.min.isr", "1")
                .brokerProbe(
                    Paths.get(System.getProperty("klat.broker-probe.jar")), collectorEndpoint)
                .start()) {
      Broker follower = createTopics(cluster);
      CollectorEndToEndIT.awaitHealthy(adminPort, collector);
      log(
          "cluster, topics and collector up at %d s; follower of %s: broker %d",
          secondsSince(startedNanos), PipelineApp.ENRICHED, follower.nodeId());

      List<String> agent = new ArrayList<>(AppJvm.agentOptions(tee.endpoint(), "1.0"));
      // Every record is sampled: tail capture would only add copies.
      agent.add("-Dklat.tail.enabled=false");
      agent.add("-XX:TieredStopAtLevel=1");
      AppJvm.Running ctp =
          start(
              apps,
              AppJvm.start(
                  CLIENTS_2_8, agent, PipelineApp.class, "ctp", cluster.bootstrapServers()));
      AppJvm.Running streams =
          start(
              apps,
              AppJvm.start(STREAMS, agent, PipelineStreamsApp.class, cluster.bootstrapServers()));
      AppJvm.Running listener =
          start(
              apps,
              AppJvm.startJar(
                  Paths.get(System.getProperty("klat.spring-boot3.jar")),
                  agent,
                  "--spring.profiles.active=pipeline",
                  "--spring.kafka.bootstrap-servers=" + cluster.bootstrapServers(),
                  "--server.port=" + CollectorEndToEndIT.freePort()));
      ctp.awaitLine("READY");
      streams.awaitLine("RUNNING");
      listener.awaitLine("READY");
      AppJvm.Running source =
          start(
              apps,
              AppJvm.start(
                  CLIENTS_2_8,
                  agent,
                  PipelineApp.class,
                  "source",
                  cluster.bootstrapServers(),
                  Integer.toString(FAN_RECORDS),
                  Integer.toString(BATCH_RECORDS)));
      source.awaitLine("PRODUCING");
      log("applications up, producing at %d s", secondsSince(startedNanos));
      awaitFirstChain(listener);
      TimeUnit.SECONDS.sleep(WARMUP_SECONDS);

      // Baseline.
      sleepPhase();
      JsonNode baseline = phase(softly, adminPort, listener, "baseline");
      checkShape(softly, baseline, "baseline");
      // The same wait in /api/breakdown of the last hop's pair alone (the exactly-once side).
      JsonNode hop3Breakdown =
          JSON.readTree(
              CollectorEndToEndIT.get(
                  adminPort,
                  "/api/breakdown?topic="
                      + PipelineApp.INVOICES
                      + "&group="
                      + PipelineApp.BILLING
                      + "&window="
                      + (PHASE_SECONDS + SETTLE_SECONDS)
                      + "s",
                  null));
      softly
          .assertThat(hop3Breakdown.at("/segments/commit/parts/transaction/p99Seconds").asDouble(0))
          .as(
              "[eos] baseline: /api/breakdown of %s/%s has commit's transaction part: %s",
              PipelineApp.INVOICES, PipelineApp.BILLING, hop3Breakdown.at("/segments/commit"))
          .isGreaterThan(0);
      softly
          .assertThat(
              baseline.at("/hops/2/segments/commit/parts/transaction/p99Seconds").asDouble(0))
          .as(
              "[core+eos] baseline: hop 3's commit in /api/pipelines has the transaction part"
                  + " (read_committed reader of Streams' transactional output): %s",
              baseline.at("/hops/2/segments/commit"))
          .isGreaterThan(0);
      softly
          .assertThat(
              baseline.at("/hops/1/segments/commit/parts/transaction/p99Seconds").asDouble(0))
          .as(
              "[core+eos] baseline: hop 2's commit has no transaction wait (plain producer): %s",
              baseline.at("/hops/1/segments/commit"))
          .isEqualTo(0.0);

      // The consume-transform-produce loop's processing.
      ctp.writeLine("delay " + CTP_DELAY_MS);
      sleepPhase();
      ctp.writeLine("delay 0");
      JsonNode processing = phase(softly, adminPort, listener, "processing delay");
      checkShape(softly, processing, "processing delay");
      checkTail(softly, processing, "processing delay", 1, Set.of("processing"));
      checkWithinTolerance(
          softly, "processing delay", processing.at("/hops/0/processing/p99Seconds"), CTP_DELAY_MS);

      if (JdkIndependent.leftToFirstPass()) {
        log("CI's second pass: the paused follower and the slow consumer are the first pass's");
      } else {
        // The frozen follower under hop 2's input topic.
        List<long[]> pauses = pauseFollower(follower);
        JsonNode paused =
            phase(softly, adminPort, listener, "paused follower (" + pauses.size() + " pauses)");
        checkShape(softly, paused, "paused follower");
        checkTail(softly, paused, "paused follower", 2, Set.of("publish", "commit"));

        // The slow final consumer.
        listener.writeLine("delay " + CONSUMER_DELAY_MS);
        sleepPhase();
        listener.writeLine("delay 0");
        JsonNode slowConsumer = phase(softly, adminPort, listener, "slow consumer");
        checkShape(softly, slowConsumer, "slow consumer");
        checkTail(softly, slowConsumer, "slow consumer", 3, Set.of("catch-up"));
      }

      // The end: every application stops, the fan-out and batch pipelines are counted whole.
      source.writeLine("stop");
      AppJvm.Result sourceRun = source.await(Duration.ofSeconds(60));
      for (AppJvm.Running app : List.of(ctp, streams, listener)) {
        app.closeInput();
      }
      List<AppJvm.Result> ends = new ArrayList<>();
      for (AppJvm.Running app : List.of(ctp, streams, listener)) {
        ends.add(app.await(Duration.ofSeconds(60)));
      }
      assertThat(sourceRun.exitCode()).as(sourceRun.output()).isZero();
      assertThat(sourceRun.output())
          .contains("SINK " + PipelineApp.FAN_A + "=" + FAN_RECORDS * PipelineApp.FAN_A_PER_INPUT)
          .contains("SINK " + PipelineApp.FAN_B + "=" + FAN_RECORDS * PipelineApp.FAN_B_PER_INPUT)
          .contains("SINK " + PipelineApp.BATCH_OUT + "=" + BATCH_RECORDS / PipelineApp.BATCH_SIZE);
      for (AppJvm.Result end : ends) {
        assertThat(end.exitCode()).as(end.output()).isZero();
        assertThat(end.output()).contains("klat agent started").doesNotContain("hook failed");
      }
      log(
          "%s; %s; %s",
          firstLine(sourceRun, "SENT"),
          firstLine(ends.get(0), "CTP"),
          firstLine(ends.get(1), "PROCESSED"));
      TimeUnit.SECONDS.sleep(SETTLE_SECONDS);
      checkFanOutAndBatch(softly, adminPort, chainsSent(sourceRun));
      checkAgentSpans(softly, tee.spans());
      assertThat(tee.errors()).isEmpty();
      log("run %d s", secondsSince(startedNanos));
    } finally {
      for (AppJvm.Running app : apps) {
        if (app.isAlive()) {
          app.destroy();
        }
      }
      collector.destroy();
      if (!collector.waitFor(10, TimeUnit.SECONDS)) {
        collector.destroyForcibly();
      }
    }
    softly.assertAll();
  }

  // --- the cluster ---

  // Makes the internal topics exist (one partition, one replica each), picks a broker that leads
  // neither, and creates the pipeline's topics: pipe-enriched led by another broker with that one
  // as its only follower, every other topic on one replica elsewhere. Returns the follower.
  private Broker createTopics(KafkaCluster cluster) throws Exception {
    Properties consumer = new Properties();
    consumer.put("bootstrap.servers", cluster.bootstrapServers());
    consumer.put("group.id", "pipe-warm-up");
    consumer.put("key.deserializer", StringDeserializer.class.getName());
    consumer.put("value.deserializer", StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumer)) {
      // Finding the group's coordinator creates __consumer_offsets.
      c.listTopics(Duration.ofSeconds(30));
      c.committed(
          Set.of(new org.apache.kafka.common.TopicPartition("pipe-none", 0)),
          Duration.ofSeconds(60));
    }
    Properties producer = new Properties();
    producer.put("bootstrap.servers", cluster.bootstrapServers());
    producer.put("transactional.id", "pipe-warm-up");
    producer.put("key.serializer", StringSerializer.class.getName());
    producer.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
      // Finding the transaction's coordinator creates __transaction_state.
      p.initTransactions();
    }
    Set<Integer> internalLeaders = new TreeSet<>();
    try (Admin admin = cluster.admin()) {
      Map<String, TopicDescription> internal =
          admin
              .describeTopics(List.of("__consumer_offsets", "__transaction_state"))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS);
      internal
          .values()
          .forEach(d -> d.partitions().forEach(p -> internalLeaders.add(p.leader().id())));
    }
    int follower = 1;
    while (internalLeaders.contains(follower)) {
      follower++;
    }
    // Topics place replicas from the preferred leader on, wrapping: the one before the follower.
    int leader = follower == 1 ? 3 : follower - 1;
    cluster.createTopic(
        TopicSpec.named(PipelineApp.ENRICHED).replicationFactor(2).preferredLeader(leader).build());
    for (String topic :
        List.of(
            PipelineApp.ORDERS,
            PipelineApp.INVOICES,
            PipelineApp.FAN_IN,
            PipelineApp.FAN_A,
            PipelineApp.FAN_B,
            PipelineApp.BATCH_IN,
            PipelineApp.BATCH_OUT)) {
      cluster.createTopic(TopicSpec.named(topic).preferredLeader(leader).build());
    }
    log("internal topics led by %s; %s led by %d", internalLeaders, PipelineApp.ENRICHED, leader);
    return cluster.broker(follower);
  }

  // Freezes the follower PAUSE_MS every PAUSE_EVERY_MS for a phase; returns {frozen, resumed}
  // epoch micros of each pause.
  private static List<long[]> pauseFollower(Broker follower) throws InterruptedException {
    List<long[]> pauses = new ArrayList<>();
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(PHASE_SECONDS);
    for (long at = start + TimeUnit.MILLISECONDS.toNanos(PAUSE_EVERY_MS / 2);
        at + TimeUnit.MILLISECONDS.toNanos(PAUSE_MS) < end;
        at += TimeUnit.MILLISECONDS.toNanos(PAUSE_EVERY_MS)) {
      long wait = at - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      follower.pause();
      long frozen = TailApp.epochMicros();
      try {
        Thread.sleep(PAUSE_MS);
      } finally {
        pauses.add(new long[] {frozen, TailApp.epochMicros()});
        follower.resume();
      }
    }
    long left = end - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
    return pauses;
  }

  // --- the checks ---

  private static void sleepPhase() throws InterruptedException {
    TimeUnit.SECONDS.sleep(PHASE_SECONDS);
  }

  private static void awaitFirstChain(AppJvm.Running listener) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (listener.outputSoFar().lines().noneMatch(l -> l.startsWith("T "))) {
      assertThat(System.nanoTime())
          .as("no record reached the listener in 60 s")
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  // Waits for the phase's last chains, then reads the chain pipeline over the phase alone.
  private JsonNode phase(SoftAssertions softly, int adminPort, AppJvm.Running listener, String name)
      throws Exception {
    TimeUnit.SECONDS.sleep(SETTLE_SECONDS);
    long windowSeconds = PHASE_SECONDS + SETTLE_SECONDS - WINDOW_START_GAP_SECONDS;
    long queryMicros = TailApp.epochMicros();
    JsonNode all = pipelines(adminPort, windowSeconds + "s");
    JsonNode pipeline = find(all, PipelineApp.ORDERS, PipelineApp.BILLING);
    log("phase %s: %s", name, summary(pipeline));
    // The application's chains polled in the window, less the last second (not joined yet): its
    // e2e, send() at the source to poll() at the listener, is the truth for the pipeline's.
    List<Long> truth = new ArrayList<>();
    for (String line : listener.outputSoFar().lines().filter(l -> l.startsWith("T ")).toList()) {
      String[] f = line.split(" ");
      long sendMicros = Long.parseLong(f[2]);
      long pollMicros = Long.parseLong(f[3]);
      if (sendMicros > 0
          && pollMicros >= queryMicros - TimeUnit.SECONDS.toMicros(windowSeconds)
          && pollMicros <= queryMicros - TimeUnit.SECONDS.toMicros(1)) {
        truth.add(pollMicros - sendMicros);
      }
    }
    java.util.Collections.sort(truth);
    double truthP99Ms =
        truth.isEmpty() ? -1 : truth.get((int) Math.ceil(0.99 * truth.size()) - 1) / 1e3;
    double klatP99Ms = pipeline.at("/e2e/p99Seconds").asDouble(-1) * 1_000;
    log(
        "phase %s: e2e p99 %.1f ms (klat, %d chains) against %.1f ms (the application, %d records)",
        name, klatP99Ms, pipeline.path("count").asLong(), truthP99Ms, truth.size());
    softly
        .assertThat(Math.abs(klatP99Ms - truthP99Ms))
        .as(
            "[core/link] %s: the pipeline's e2e p99 %.1f ms against the application's %.1f ms",
            name, klatP99Ms, truthP99Ms)
        .isLessThanOrEqualTo(tolerance(Math.round(truthP99Ms)));
    // Each hop's records on their own, as /api/breakdown has them: what the pipeline's hops add up.
    String window = windowSeconds + "s";
    for (String[] hop :
        List.of(
            new String[] {PipelineApp.ORDERS, PipelineApp.ENRICHER},
            new String[] {PipelineApp.ENRICHED, PipelineApp.INVOICER},
            new String[] {PipelineApp.INVOICES, PipelineApp.BILLING})) {
      JsonNode b =
          JSON.readTree(
              CollectorEndToEndIT.get(
                  adminPort,
                  "/api/breakdown?topic=" + hop[0] + "&group=" + hop[1] + "&window=" + window,
                  null));
      Map<String, String> p99 = new LinkedHashMap<>();
      b.path("segments")
          .fields()
          .forEachRemaining(e -> p99.put(e.getKey(), ms(e.getValue().path("p99Seconds"))));
      log(
          "phase %s: breakdown %s/%s count=%d e2e.p99=%s p99 %s commit.parts.transaction.p99=%s",
          name,
          hop[0],
          hop[1],
          b.path("count").asLong(),
          ms(b.at("/e2e/p99Seconds")),
          p99,
          ms(b.at("/segments/commit/parts/transaction/p99Seconds")));
    }
    return pipeline;
  }

  // The answer, or a missing node (and the reason in the report) when the collector has none.
  private JsonNode pipelines(int adminPort, String window) throws Exception {
    String body;
    try {
      body = CollectorEndToEndIT.get(adminPort, "/api/pipelines?window=" + window, null);
    } catch (java.io.IOException e) {
      log("GET /api/pipelines?window=%s failed: %s", window, e);
      return JSON.missingNode();
    }
    return JSON.readTree(body);
  }

  private static JsonNode find(JsonNode all, String firstTopic, String lastGroup) {
    for (JsonNode p : all.path("pipelines")) {
      if (firstTopic.equals(p.path("firstTopic").asText())
          && lastGroup.equals(p.path("lastGroup").asText())) {
        return p;
      }
    }
    return JSON.missingNode();
  }

  // The chain's hops, as linked, and the identity of every chain.
  private static void checkShape(SoftAssertions softly, JsonNode p, String phase) {
    softly
        .assertThat(p.isMissingNode())
        .as("[core/link] %s: a pipeline %s -> %s", phase, PipelineApp.ORDERS, PipelineApp.BILLING)
        .isFalse();
    if (p.isMissingNode()) {
      return;
    }
    softly.assertThat(p.path("count").asLong()).as("[core/link] %s: chains", phase).isPositive();
    softly
        .assertThat(p.path("identityViolations").asLong(-1))
        .as("[core] %s: identity violations", phase)
        .isZero();
    List<String> hops = new ArrayList<>();
    for (JsonNode hop : p.path("hops")) {
      hops.add(
          hop.path("inputTopic").asText()
              + "/"
              + hop.path("group").asText()
              + "/"
              + (hop.path("outputTopic").isNull() ? "null" : hop.path("outputTopic").asText()));
    }
    softly
        .assertThat(hops)
        .as("[core/link] %s: hops", phase)
        .containsExactly(
            PipelineApp.ORDERS + "/" + PipelineApp.ENRICHER + "/" + PipelineApp.ENRICHED,
            PipelineApp.ENRICHED + "/" + PipelineApp.INVOICER + "/" + PipelineApp.INVOICES,
            PipelineApp.INVOICES + "/" + PipelineApp.BILLING + "/null");
  }

  private static void checkTail(
      SoftAssertions softly, JsonNode p, String phase, int hop, Set<String> segments) {
    JsonNode tail = p.path("tail");
    softly
        .assertThat(tail.path("hop").asInt(-1) + "/" + tail.path("segment").asText())
        .as("[core] %s: the p99 tail's hop/segment (%s)", phase, tail)
        .isIn(segments.stream().map(s -> hop + "/" + s).toArray());
  }

  private static void checkWithinTolerance(
      SoftAssertions softly, String phase, JsonNode p99Seconds, long injectedMs) {
    double ms = p99Seconds.asDouble(-1) * 1_000;
    softly
        .assertThat(Math.abs(ms - injectedMs))
        .as("[core/link] %s: p99 %.1f ms against the injected %d ms", phase, ms, injectedMs)
        .isLessThanOrEqualTo(tolerance(injectedMs));
  }

  private static double tolerance(long ms) {
    return Math.max(TOLERANCE_FLOOR_MS, TOLERANCE_RATIO * ms);
  }

  // Over the whole run: each fan-out input once in hop 1, each final record once; each batch
  // output once, with its inputs counted at most once.
  private void checkFanOutAndBatch(SoftAssertions softly, int adminPort, long chainsSent)
      throws Exception {
    JsonNode all = pipelines(adminPort, "10m");
    for (JsonNode p : all.path("pipelines")) {
      log("run: %s", summary(p));
      softly
          .assertThat(p.path("identityViolations").asLong(-1))
          .as("[core] run: identity violations of %s", p.path("name").asText())
          .isZero();
    }
    JsonNode fanA = find(all, PipelineApp.FAN_IN, PipelineApp.FAN_SINK_A);
    JsonNode fanB = find(all, PipelineApp.FAN_IN, PipelineApp.FAN_SINK_B);
    JsonNode batch = find(all, PipelineApp.BATCH_IN, PipelineApp.BATCH_SINK);
    JsonNode chain = find(all, PipelineApp.ORDERS, PipelineApp.BILLING);
    softly
        .assertThat(fanA.path("count").asLong())
        .as("[core/link] fan-out: chains to %s (two per input)", PipelineApp.FAN_SINK_A)
        .isEqualTo((long) FAN_RECORDS * PipelineApp.FAN_A_PER_INPUT);
    softly
        .assertThat(fanA.at("/hops/0/count").asLong())
        .as(
            "[core/link] fan-out: each input once in hop 1 of the %s pipeline",
            PipelineApp.FAN_SINK_A)
        .isEqualTo(FAN_RECORDS);
    softly
        .assertThat(fanB.path("count").asLong())
        .as("[core/link] fan-out: chains to %s", PipelineApp.FAN_SINK_B)
        .isEqualTo((long) FAN_RECORDS * PipelineApp.FAN_B_PER_INPUT);
    softly
        .assertThat(fanB.at("/hops/0/count").asLong())
        .as(
            "[core/link] fan-out: each input once in hop 1 of the %s pipeline",
            PipelineApp.FAN_SINK_B)
        .isEqualTo(FAN_RECORDS);
    softly
        .assertThat(batch.path("count").asLong())
        .as("[core/link] batch: each output once")
        .isEqualTo(BATCH_RECORDS / PipelineApp.BATCH_SIZE);
    softly
        .assertThat(batch.at("/hops/0/count").asLong())
        .as("[core] batch: hop 1 counts each input once (every input is sampled and linked)")
        .isEqualTo(BATCH_RECORDS);
    softly
        .assertThat(chain.path("count").asLong())
        .as("[core] chain: no final record counted twice over the run")
        .isBetween(1L, chainsSent);
  }

  // The agents' own spans: the links and the transactions the collector builds on.
  private void checkAgentSpans(SoftAssertions softly, List<Span> spans) {
    HexFormat hex = HexFormat.of();
    Map<String, Integer> linkCounts = new TreeMap<>();
    Map<String, Integer> linkTopics = new TreeMap<>();
    Map<String, Integer> isolation = new TreeMap<>();
    int transactional = 0;
    int committed = 0;
    int invoices = 0;
    // Fan-out: the consumer span of each input, and the outputs whose parent it is.
    Map<String, Integer> fanOutputsByParent = new HashMap<>();
    Set<String> fanInputSpans = new TreeSet<>();
    for (Span span : spans) {
      String topic =
          OtlpReceiver.stringAttribute(span, SpanAttributes.MESSAGING_DESTINATION_NAME.name());
      if (topic == null) {
        continue;
      }
      boolean producer = span.getKind() == Span.SpanKind.SPAN_KIND_PRODUCER;
      if (producer) {
        Long count = OtlpReceiver.longAttribute(span, SpanAttributes.LINK_COUNT.name());
        linkCounts.merge(topic + ":" + count, 1, Integer::sum);
        linkTopics.merge(
            topic
                + "<-"
                + OtlpReceiver.stringAttribute(span, SpanAttributes.LINK_TOPIC.name())
                + "/"
                + OtlpReceiver.stringAttribute(span, SpanAttributes.LINK_GROUP.name()),
            1,
            Integer::sum);
        if (topic.equals(PipelineApp.FAN_A) || topic.equals(PipelineApp.FAN_B)) {
          fanOutputsByParent.merge(
              hex.formatHex(span.getParentSpanId().toByteArray()), 1, Integer::sum);
        }
        if (topic.equals(PipelineApp.INVOICES)) {
          invoices++;
          Long t = OtlpReceiver.longAttribute(span, SpanAttributes.PRODUCER_TRANSACTIONAL.name());
          transactional += t != null && t == 1 ? 1 : 0;
          Long c = OtlpReceiver.longAttribute(span, SpanAttributes.TXN_COMMIT_TIME.name());
          committed += c != null && c > 0 ? 1 : 0;
        }
      } else if (span.getKind() == Span.SpanKind.SPAN_KIND_CONSUMER) {
        String group =
            OtlpReceiver.stringAttribute(span, SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name());
        isolation.merge(
            group
                + ":"
                + OtlpReceiver.stringAttribute(
                    span, SpanAttributes.CONSUMER_ISOLATION_LEVEL.name()),
            1,
            Integer::sum);
        if (topic.equals(PipelineApp.FAN_IN) && PipelineApp.FANNER.equals(group)) {
          fanInputSpans.add(hex.formatHex(span.getSpanId().toByteArray()));
        }
      }
    }
    int fanInputsWithAllOutputs = 0;
    for (String input : fanInputSpans) {
      if (fanOutputsByParent.getOrDefault(input, 0)
          == PipelineApp.FAN_A_PER_INPUT + PipelineApp.FAN_B_PER_INPUT) {
        fanInputsWithAllOutputs++;
      }
    }
    log("agent spans: %d; producer spans by topic:link.count %s", spans.size(), linkCounts);
    log("agent spans: producer spans by topic<-link.topic/link.group %s", linkTopics);
    log("agent spans: consumer spans by group:isolation %s", isolation);
    log(
        "agent spans: %s: %d, transactional %d, with a commit time %d; fan-out inputs %d, with"
            + " their %d outputs as children %d",
        PipelineApp.INVOICES,
        invoices,
        transactional,
        committed,
        fanInputSpans.size(),
        PipelineApp.FAN_A_PER_INPUT + PipelineApp.FAN_B_PER_INPUT,
        fanInputsWithAllOutputs);
    softly
        .assertThat(linkCounts)
        .as("[link] every batch output links the %d inputs of its poll", PipelineApp.BATCH_SIZE)
        .containsEntry(
            PipelineApp.BATCH_OUT + ":" + PipelineApp.BATCH_SIZE,
            BATCH_RECORDS / PipelineApp.BATCH_SIZE);
    softly
        .assertThat(linkTopics)
        .as("[link] the chain's poll-loop outputs name their input")
        .containsKey(PipelineApp.ENRICHED + "<-" + PipelineApp.ORDERS + "/" + PipelineApp.ENRICHER);
    softly
        .assertThat(fanInputsWithAllOutputs)
        .as("[link] each fan-out input is the parent of its outputs")
        .isEqualTo(FAN_RECORDS);
    softly
        .assertThat(isolation)
        .as("[txn/eos] the listener's consumer spans say read_committed")
        .containsKey(PipelineApp.BILLING + ":read_committed");
    softly
        .assertThat(transactional)
        .as("[txn] Streams' output spans are transactional")
        .isEqualTo(invoices)
        .isPositive();
    softly
        .assertThat(committed)
        .as("[txn] Streams' output spans carry their transaction's commit time")
        .isEqualTo(invoices);
  }

  // --- output ---

  private static String summary(JsonNode p) {
    if (p.isMissingNode()) {
      return "(no such pipeline)";
    }
    StringBuilder s = new StringBuilder();
    s.append(p.path("name").asText())
        .append(" count=")
        .append(p.path("count").asLong())
        .append(" e2e.p99=")
        .append(ms(p.at("/e2e/p99Seconds")))
        .append(" identityViolations=")
        .append(p.path("identityViolations"))
        .append(" tail=")
        .append(p.path("tail"));
    for (JsonNode hop : p.path("hops")) {
      s.append("\n    hop ")
          .append(hop.path("index").asInt())
          .append(" ")
          .append(hop.path("inputTopic").asText())
          .append("/")
          .append(hop.path("group").asText())
          .append(" count=")
          .append(hop.path("count").asLong())
          .append(" e2e.p99=")
          .append(ms(hop.at("/e2e/p99Seconds")));
      Map<String, String> p99 = new LinkedHashMap<>();
      hop.path("segments")
          .fields()
          .forEachRemaining(e -> p99.put(e.getKey(), ms(e.getValue().path("p99Seconds"))));
      s.append(" p99 ").append(p99);
      JsonNode parts = hop.at("/segments/commit/parts");
      if (!parts.isMissingNode()) {
        s.append(" commit.parts.p99 replication=")
            .append(ms(parts.at("/replication/p99Seconds")))
            .append(" transaction=")
            .append(ms(parts.at("/transaction/p99Seconds")));
      }
      if (!hop.path("processing").isMissingNode()) {
        s.append(" processing.p99=").append(ms(hop.at("/processing/p99Seconds")));
      }
    }
    return s.toString();
  }

  private static String ms(JsonNode seconds) {
    return seconds.isNumber() ? String.format("%.1fms", seconds.asDouble() * 1_000) : "-";
  }

  private static long chainsSent(AppJvm.Result source) {
    String sent = firstLine(source, "SENT");
    return Long.parseLong(sent.replaceAll(".*chain=(\\d+).*", "$1"));
  }

  private static String firstLine(AppJvm.Result result, String prefix) {
    return result
        .output()
        .lines()
        .filter(l -> l.startsWith(prefix))
        .findFirst()
        .orElse("(no " + prefix + ")");
  }

  private static AppJvm.Running start(List<AppJvm.Running> apps, AppJvm.Running app) {
    apps.add(app);
    return app;
  }

  private void log(String format, Object... args) {
    System.out.println("pipeline: " + String.format(format, args));
  }

  private static long secondsSince(long startedNanos) {
    return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
  }
}
