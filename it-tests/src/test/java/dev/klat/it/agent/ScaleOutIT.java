package dev.klat.it.agent;

import static dev.klat.it.agent.CollectorEndToEndIT.awaitHealthy;
import static dev.klat.it.agent.CollectorEndToEndIT.freePort;
import static dev.klat.it.agent.CollectorEndToEndIT.get;
import static dev.klat.it.agent.CollectorEndToEndIT.startCollector;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 20's scale-out on real parts: one broker with the broker probe, one collector in the {@code
 * ingest} role receiving the agents' and the probe's OTLP, three in the {@code join} role sharing
 * the span topic's partitions. One join member is SIGKILLed while the producer is mid-stream and
 * started again: the breakdowns counted across the members (the killed one's up to its death) equal
 * the records sampled on both sides, none twice, and the members that took its partitions over read
 * them again and left the joins it had counted alone. Then, with no member dying, the members'
 * metrics add up to what one collector would show.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ScaleOutIT {
  private static final String TOPIC = "scale-out";
  private static final String GROUP = "scale-out-group";
  private static final int RECORDS = 1500;
  private static final String CALM_TOPIC = "scale-out-calm";
  private static final int CALM_RECORDS = 300;
  private static final Pattern COUNT = Pattern.compile("\"count\":(\\d+)");
  private static final Pattern OWNED = Pattern.compile("\"spanPartitionsOwned\":(\\d+)");
  private static final Pattern SINCE_COMMIT = Pattern.compile("\"millisSinceLastCommit\":(\\d+)");
  private static final Pattern REPLAYED = Pattern.compile("\"breakdownsReplayed\":(\\d+)");
  private static final Pattern PROBE_READ = Pattern.compile("\"probeTopicRecordsRead\":(\\d+)");

  @Test
  void aJoinMemberKilledMidStreamLosesNothingAndNothingCountsTwice() throws Exception {
    int ingestPort = freePort();
    String endpoint = "http://127.0.0.1:" + ingestPort;
    try (KafkaCluster cluster =
        KafkaClusterSpec.brokers(1)
            .name("scale-out")
            .brokerProbe(Paths.get(System.getProperty("klat.broker-probe.jar")), endpoint)
            .start()) {
      cluster.createTopic(TopicSpec.named(TOPIC).partitions(3).build());
      String kafka = "--spans.kafka.bootstrap-servers=" + cluster.bootstrapServers();
      List<String> shared =
          List.of(
              kafka,
              "--spans.kafka.partitions=6",
              "--spans.kafka.replication-factor=1",
              "--spans.kafka.session-timeout=6s",
              "--otlp.grpc.enabled=false");
      List<Process> processes = new ArrayList<>();
      try {
        Process ingest = start(processes, ingestPort, freePort(), "--mode=ingest", shared);
        int[] memberPorts = {freePort(), freePort(), freePort()};
        Process[] members = new Process[3];
        for (int i = 0; i < 3; i++) {
          members[i] = start(processes, freePort(), memberPorts[i], "--mode=join", shared);
        }
        for (int i = 0; i < 3; i++) {
          awaitHealthy(memberPorts[i], members[i]);
          awaitOwning(memberPorts[i], members[i]);
        }
        assertThat(ingest.isAlive()).isTrue();

        AppJvm.Running app = startProducerAndConsumer(cluster, endpoint, TOPIC, RECORDS, 10);
        // Mid-stream: some breakdowns counted everywhere, most records still to come.
        int victim = 1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (count(memberPorts[victim]) < 50) {
          assertThat(System.nanoTime()).as("no breakdowns before the kill").isLessThan(deadline);
          Thread.sleep(100);
        }
        long countedByVictim = countBetweenCommitsThenKill(memberPorts[victim], members[victim]);
        Thread.sleep(2_000);
        members[victim] = start(processes, freePort(), memberPorts[victim], "--mode=join", shared);
        awaitHealthy(memberPorts[victim], members[victim]);

        AppJvm.Result result = app.await();
        assertThat(result.exitCode()).as(result.output()).isZero();

        long counted = 0;
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
          counted = countedByVictim;
          for (int port : memberPorts) {
            counted += count(port);
          }
          if (counted >= RECORDS || System.nanoTime() > deadline) {
            break;
          }
          Thread.sleep(500);
        }
        // The members settle: a late duplicate would show within a few commits.
        Thread.sleep(3_000);
        counted = countedByVictim;
        long replayed = 0;
        for (int port : memberPorts) {
          counted += count(port);
          replayed += number(REPLAYED, get(port, "/api/stats", null));
        }
        System.out.printf(
            "scale-out: killed member had counted %d; all counted %d of %d; replayed %d%n",
            countedByVictim, counted, RECORDS, replayed);
        assertThat(counted)
            .as("breakdowns across the members, the killed one's up to its death")
            .isEqualTo(RECORDS);
        assertThat(replayed)
            .as("the killed member's partitions were read again, its joins not counted twice")
            .isPositive();
        assertThat(number(PROBE_READ, get(memberPorts[0], "/api/stats", null)))
            .as("every member reads the broker probe's records")
            .isPositive();
        for (Process member : members) {
          assertThat(member.isAlive()).isTrue();
        }
        theMembersMetricsAddUpToTheRecords(cluster, endpoint, memberPorts);
      } finally {
        for (Process p : processes) {
          p.destroy();
        }
        for (Process p : processes) {
          if (!p.waitFor(15, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        }
      }
    }
  }

  /**
   * With no member dying, the members' {@code /metrics} add up to what one collector would show:
   * the consumer agent's every-record histogram (each agent's points go to one member) and the
   * breakdowns' segment histograms, summed over the members with no label of theirs.
   */
  private static void theMembersMetricsAddUpToTheRecords(
      KafkaCluster cluster, String endpoint, int[] memberPorts) throws Exception {
    cluster.createTopic(TopicSpec.named(CALM_TOPIC).partitions(3).build());
    AppJvm.Result calm =
        startProducerAndConsumer(cluster, endpoint, CALM_TOPIC, CALM_RECORDS, 5).await();
    assertThat(calm.exitCode()).as(calm.output()).isZero();
    String topic = "topic=\"" + CALM_TOPIC + "\"";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long e2e;
    long produce;
    do {
      Thread.sleep(500);
      e2e = 0;
      produce = 0;
      for (int port : memberPorts) {
        String scrape = get(port, "/metrics", null);
        e2e += sum(scrape, "klat_e2e_latency_seconds_count{", topic);
        produce += sum(scrape, "klat_segment_latency_seconds_count{", topic, "segment=\"produce\"");
      }
    } while ((e2e != CALM_RECORDS || produce != CALM_RECORDS) && System.nanoTime() < deadline);
    assertThat(e2e)
        .as("the consumer agent's e2e histogram, summed over the members")
        .isEqualTo(CALM_RECORDS);
    assertThat(produce)
        .as("the breakdowns' produce histogram, summed over the members")
        .isEqualTo(CALM_RECORDS);
  }

  // The sum of the values of the series starting with prefix whose labels hold every fragment.
  private static long sum(String scrape, String prefix, String... fragments) {
    long total = 0;
    for (String line : scrape.split("\n")) {
      if (!line.startsWith(prefix)) {
        continue;
      }
      boolean all = true;
      for (String fragment : fragments) {
        all &= line.contains(fragment);
      }
      if (all) {
        total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  // A producer and a consumer with the agent, sampling every record, one JVM (ConsumerApp e2e).
  private static AppJvm.Running startProducerAndConsumer(
      KafkaCluster cluster, String endpoint, String topic, int records, int intervalMillis)
      throws IOException {
    return AppJvm.start(
        "4.4.0",
        AppJvm.agentOptions(endpoint, "1.0"),
        ConsumerApp.class,
        "e2e",
        cluster.bootstrapServers(),
        topic,
        GROUP,
        "classic",
        Integer.toString(records),
        Integer.toString(intervalMillis),
        AppJvm.LINGER_MILLIS);
  }

  private static Process start(
      List<Process> processes, int otlpPort, int adminPort, String mode, List<String> shared)
      throws IOException {
    List<String> options = new ArrayList<>(shared);
    options.add(mode);
    Process p = startCollector(otlpPort, adminPort, options.toArray(String[]::new));
    processes.add(p);
    return p;
  }

  private static void awaitOwning(int adminPort, Process member) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (number(OWNED, get(adminPort, "/api/stats", null)) < 2) {
      assertThat(member.isAlive()).as("member exited").isTrue();
      assertThat(System.nanoTime()).as("member owns no span partition").isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  /**
   * A member counts its breakdowns right after each commit, once a second: read its count half way
   * between two commits and kill it at once (SIGKILL), so that the count read is its last.
   */
  private static long countBetweenCommitsThenKill(int adminPort, Process member) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      long since = number(SINCE_COMMIT, get(adminPort, "/api/stats", null));
      if (since >= 100 && since <= 500) {
        long counted = count(adminPort);
        member.destroyForcibly();
        assertThat(member.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return counted;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("never between two commits");
  }

  private static long count(int adminPort) throws IOException {
    String answer =
        get(adminPort, "/api/breakdown?topic=" + TOPIC + "&group=" + GROUP + "&window=10m", null);
    Matcher m = COUNT.matcher(answer);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private static long number(Pattern pattern, String json) {
    Matcher m = pattern.matcher(json);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
