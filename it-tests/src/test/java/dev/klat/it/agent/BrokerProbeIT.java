package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The broker probe on real brokers: three KRaft brokers started with {@code
 * -javaagent:klat-broker-probe.jar}, a replicated topic, a producer and a consumer with the client
 * agent, the collector jar. Every broker weaves its {@code Partition}, the probes' ranges reach the
 * collector and none is rejected, and the sampled records' publish and commit are then measured by
 * the probe (quality {@code exact}). A committed transaction's records make the leader's probe
 * report the ranges its last stable offset passed ({@code V}, section 9 of the latency model).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BrokerProbeIT {

  private static final int RECORDS = 150;
  private static final String TOPIC = "probe-e2e";
  private static final String GROUP = "probe-e2e-group";

  @Test
  void everySampledRecordGetsExactBrokerInstantsFromTheProbe() throws Exception {
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    Path probe = Paths.get(System.getProperty("klat.broker-probe.jar"));
    try (KafkaCluster cluster =
        KafkaClusterSpec.brokers(3)
            .name("probe")
            .brokerProbe(probe, "http://127.0.0.1:" + otlpPort)
            .start()) {
      cluster.createTopic(TopicSpec.named(TOPIC).partitions(3).replicationFactor(3).build());
      cluster.createTopic(
          TopicSpec.named(TOPIC + "-warmup").partitions(1).replicationFactor(3).build());
      cluster.createTopic(
          TopicSpec.named(TOPIC + "-txn").partitions(1).replicationFactor(3).build());
      Process collector =
          CollectorEndToEndIT.startCollector(otlpPort, adminPort, "--otlp.grpc.enabled=false");
      try {
        CollectorEndToEndIT.awaitHealthy(adminPort, collector);
        // The probes started before the collector, and wait out their backoff before they send:
        // records joined before a leader's probe is heard from get no broker instants.
        awaitLiveProbes(adminPort, 3);
        runApplication(cluster, otlpPort);
        String answer = awaitBreakdowns(adminPort, RECORDS);
        assertMeasuredByTheProbe(answer, RECORDS, RECORDS);
        // Section 9: a committed transaction lags the last stable offset behind the high
        // watermark until its marker is replicated; the leader's probe reports when it passed.
        long transactionStart = System.nanoTime();
        commitATransaction(cluster);
        awaitStableRanges(adminPort);
        System.out.println(
            "transaction committed and its stable range reported in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - transactionStart)
                + " ms");

        // A leader change: broker 1 stops, the partitions it led move to the others (a new leader
        // epoch), and it comes back as a follower. The next records are measured by the new
        // leaders' probes, and nothing the old leader reported answers for them.
        cluster.broker(1).stop();
        cluster.broker(1).start();
        awaitLiveProbes(adminPort, 3);
        runApplication(cluster, otlpPort);
        answer = awaitBreakdowns(adminPort, 2 * RECORDS);
        assertMeasuredByTheProbe(answer, 2 * RECORDS, 2 * RECORDS * 95 / 100);

        String stats = get(adminPort, "/api/stats");
        System.out.println("stats: " + stats);
        assertThat(number(stats, "probeRecordsReceived")).as(stats).isPositive();
        assertThat(number(stats, "probeRecordsRejected")).as(stats).isZero();
        assertThat(number(stats, "probePartitionsEvicted")).as(stats).isZero();
        // Replication factor 3: the high watermark moves when a follower's fetch catches up.
        assertThat(number(stats, "probeCommitRangesWithFollower")).as(stats).isPositive();
        // The applications' produce requests: each append read its request on the handler thread.
        assertThat(number(stats, "probeAppendRangesWithRequest")).as(stats).isPositive();
        for (Broker broker : cluster.brokers()) {
          assertThat(Files.readString(broker.logFile()))
              .as("broker %d log", broker.nodeId())
              .contains("broker probe: instrumented kafka.cluster.Partition of Kafka 4.4.0");
        }
      } finally {
        collector.destroy();
        if (!collector.waitFor(10, TimeUnit.SECONDS)) {
          collector.destroyForcibly();
        }
      }
    }
  }

  private static void commitATransaction(KafkaCluster cluster) {
    java.util.Properties p = new java.util.Properties();
    p.put("bootstrap.servers", cluster.bootstrapServers());
    p.put("transactional.id", "probe-e2e-txn");
    p.put("key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
    p.put(
        "value.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
    try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
        new org.apache.kafka.clients.producer.KafkaProducer<>(p)) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 3; i++) {
        producer.send(
            new org.apache.kafka.clients.producer.ProducerRecord<>(TOPIC + "-txn", "k", "v" + i));
      }
      producer.commitTransaction();
    }
  }

  private static void awaitStableRanges(int adminPort) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    String stats = get(adminPort, "/api/stats");
    while (number(stats, "probeStableRanges") == 0 && System.nanoTime() < deadline) {
      Thread.sleep(200);
      stats = get(adminPort, "/api/stats");
    }
    assertThat(number(stats, "probeStableRanges")).as(stats).isPositive();
  }

  private static void runApplication(KafkaCluster cluster, int otlpPort) throws Exception {
    AppJvm.Result app =
        AppJvm.run(
            "4.4.0",
            AppJvm.agentOptions("http://127.0.0.1:" + otlpPort, "1.0"),
            ConsumerApp.class,
            "e2e",
            cluster.bootstrapServers(),
            TOPIC,
            GROUP,
            "classic",
            Integer.toString(RECORDS),
            "10",
            "0");
    assertThat(app.exitCode()).as(app.output()).isZero();
  }

  static void awaitLiveProbes(int adminPort, int brokers) throws Exception {
    // The probe's backoff is at most 5 s, and an idle probe reports every second.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    String stats = get(adminPort, "/api/stats");
    while (number(stats, "probeBrokersAlive") < brokers && System.nanoTime() < deadline) {
      Thread.sleep(200);
      stats = get(adminPort, "/api/stats");
    }
    assertThat(number(stats, "probeBrokersAlive")).as(stats).isEqualTo(brokers);
  }

  private static String awaitBreakdowns(int adminPort, int count) throws Exception {
    return awaitBreakdowns(adminPort, TOPIC, GROUP, count);
  }

  /** The breakdown of topic and group once it counts {@code count} records (60 s at most). */
  static String awaitBreakdowns(int adminPort, String topic, String group, int count)
      throws Exception {
    String query = "/api/breakdown?topic=" + topic + "&group=" + group + "&window=10m";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String answer = get(adminPort, query);
    while (!answer.contains("\"count\":" + count) && System.nanoTime() < deadline) {
      Thread.sleep(500);
      answer = get(adminPort, query);
    }
    assertThat(answer).as("every sampled record joined").contains("\"count\":" + count);
    System.out.println("breakdown: " + answer);
    return answer;
  }

  static void assertMeasuredByTheProbe(String answer, int count, int atLeast) {
    for (String segment : new String[] {"publish", "commit"}) {
      Matcher quality =
          Pattern.compile(
                  "\"" + segment + "\":\\{\"count\":(\\d+),[^}]*\"quality\":\\{\"exact\":(\\d+)")
              .matcher(answer);
      assertThat(quality.find()).as("%s in %s", segment, answer).isTrue();
      assertThat(Integer.parseInt(quality.group(1))).as(segment).isEqualTo(count);
      assertThat(Integer.parseInt(quality.group(2)))
          .as("%s measured by the probe: %s", segment, answer)
          .isGreaterThanOrEqualTo(atLeast);
    }
  }

  static long number(String json, String key) {
    Matcher m = Pattern.compile("\"" + Pattern.quote(key) + "\":(-?\\d+)").matcher(json);
    assertThat(m.find()).as("%s in %s", key, json).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static String get(int port, String path) throws IOException {
    return CollectorEndToEndIT.get(port, path, null);
  }
}
