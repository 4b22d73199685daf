package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The diagnosis on real brokers: one cause per segment, provoked at once in one 3-broker cluster
 * (broker probe on every broker, the collector reading their request metrics), each on a topic of
 * its own, and the top finding of each topic's diagnosis must name it:
 *
 * <ul>
 *   <li>produce: {@code linger.ms=500} at 20 records/s, batches far from full;
 *   <li>publish: 200 ms each way between the producer and the topic's leader (broker 1), {@code
 *       acks=1};
 *   <li>commit: 30 ms each way between the followers and the topic's leader (broker 2), {@code
 *       acks=all}, each record sent once the previous one is acknowledged (so that none is held
 *       behind another on the connection);
 *   <li>catch-up: the application sleeps 500 ms after each poll;
 *   <li>fetch: {@code fetch.min.bytes=1 MiB} with {@code fetch.max.wait.ms=500} at 20 records/s.
 * </ul>
 *
 * <p>The other three topics are led by broker 3, whose paths are not delayed. Each cause is made
 * larger than the stalls a loaded 2-core machine adds now and then (a 200 ms commit on an undelayed
 * path put a catch-up topic's five slowest records under commit in one run): the tail is the
 * slowest 1%, and a stall that hits a few records makes them the tail.
 *
 * <p>With {@code -Dklat.diagnosis.suite=true}, a second cluster provokes the causes of the table
 * that need a path of their own: behind a slow leader, {@code send()} blocked on a {@code
 * buffer.memory} of two batches, batches waiting for the one request slot of {@code
 * max.in.flight.requests.per.connection=1}, and full batches of three records queued behind it (a
 * {@code batch.size} too small for the rate); {@code acks=all} requests queued on their connection
 * behind one waiting for slow followers (the publish held behind replication, named after the
 * follower); and a slow network path from the consumer to its leader (the fetch path). A third
 * cluster moves a topic's leader between two brokers every 2 s (retries). A fourth has producers
 * that write a topic less often than their {@code metadata.max.idle.ms}, 100 ms each way from every
 * broker: {@code send()} waits for the topic's metadata (metadata wait). A fifth stops a follower
 * of a topic whose {@code min.insync.replicas} is its replication factor (min.insync.replicas).
 */
class DiagnosisIT {

  // The clients of every cause; -Dklat.diagnosis.clients=2.8.2 runs the suite with the oldest.
  private static final String CLIENTS = System.getProperty("klat.diagnosis.clients", "4.4.0");
  private static final int SECONDS = 20;
  private static final int WARMUP_SECONDS = 5;
  private static final int PER_SECOND = 20;
  private static final int PUBLISH_LEADER = 1;
  private static final int COMMIT_LEADER = 2;
  private static final int OTHER_LEADER = 3;
  private static final Duration PUBLISH_DELAY = Duration.ofMillis(200);
  // Each record waits for its acknowledgement, about three of these each way: about 100 ms a
  // record, so the stream's 500 records take about 50 s, within the consumer's 80 s.
  private static final Duration COMMIT_DELAY = Duration.ofMillis(30);
  private static final Duration SUITE_DELAY = Duration.ofMillis(100);
  private static final Duration NO_DELAY = Duration.ZERO;

  /**
   * A provoked cause: its topic's clients, its leader, and how the top finding ({@code
   * segment:knob}) must start, a regular expression.
   */
  private record Cause(
      String topic,
      String clients,
      int leader,
      String expectedFinding,
      int partitions,
      int replicationFactor) {
    Cause(String topic, String clients, int leader, String expectedFinding) {
      this(topic, clients, leader, expectedFinding, 1);
    }

    Cause(String topic, String clients, int leader, String expectedFinding, int partitions) {
      this(topic, clients, leader, expectedFinding, partitions, 3);
    }
  }

  /** Load that runs beside the causes' clients, from just before they start until they end. */
  private interface Load {
    AutoCloseable start(KafkaCluster cluster) throws Exception;
  }

  private static final Load NO_LOAD = cluster -> () -> {};

  private static final List<Cause> CAUSES =
      List.of(
          new Cause("dx-produce", "1:500:1:500:0:classic:false", OTHER_LEADER, "produce:linger.ms"),
          // Room for the requests the 400 ms round trip keeps in flight: with the default 5, the
          // record's request waits for a slot about as long as it then waits for the broker, and
          // the top finding is a coin toss between produce (max.in.flight) and publish.
          new Cause(
              "dx-publish",
              "1:0:1:500:0:classic:false:"
                  + "enable.idempotence=false,max.in.flight.requests.per.connection=50",
              PUBLISH_LEADER,
              "publish:before broker " + PUBLISH_LEADER + " read the request"),
          new Cause("dx-commit", "all:0:1:500:0:classic:true", COMMIT_LEADER, "commit:"),
          new Cause("dx-catch-up", "1:0:1:500:500:classic:false", OTHER_LEADER, "catch-up:"),
          new Cause(
              "dx-fetch",
              "1:0:1048576:500:0:classic:false",
              OTHER_LEADER,
              "fetch:fetch.min.bytes"));

  private static final Pattern TOP_FINDING =
      Pattern.compile("\"findings\":\\[\\{\"segment\":\"([a-z-]+)\",\"knob\":\"([^\"]+)\"");
  // The first finding's suggestion: no field before it holds that key.
  private static final Pattern TOP_SUGGESTION = Pattern.compile("\"suggestion\":\"([^\"]*)\"");

  /** What the top finding's suggestion must say, for the topics where the knob alone is not all. */
  private static final Map<String, String> TOP_SUGGESTION_SAYS =
      Map.of(
          "dx-many",
          "Broker " + PUBLISH_LEADER + " leads many more partitions than the others",
          "dx-spread",
          "the records are spread over many partitions");

  // Its leader moves between broker 1 and broker 3 every 2 s: the batches in flight to the old
  // leader, and the next one, fail with NOT_LEADER_OR_FOLLOWER and are sent again; from broker 1,
  // 200 ms away each way, that costs the retried records a round trip in produce. With acks=1, a
  // record acknowledged by the old leader before a follower had it is lost in the move (one of 400
  // was, in one run), so acks=all. A consumer's fetch waiting at the old leader returns only after
  // fetch.max.wait.ms: at 500 ms, the lag it left after each move explained more of the tail than
  // the retries (100 ms each way to broker 1, in one run), so 100 ms. In a cluster of its own: the
  // moves also slowed the commits of the other topics broker 1 led (their top findings turned to
  // commit, in one run).
  private static final Cause RETRIES =
      new Cause("dx-retries", "all:0:1:100:0:classic:false", PUBLISH_LEADER, "produce:retries");
  private static final Duration LEADER_MOVES_EVERY = Duration.ofSeconds(2);

  // The suite's causes. A buffer.memory of two 512-byte batches, against 100 ms each way to the
  // leader at 20 records/s (about four batches in flight): send() waits for a batch to complete.
  // One request in flight at a time on that path: the records of about 200 ms wait in a batch far
  // from full for the slot; with a batch.size of 3 of these records (about 190 bytes each with
  // their headers), 15 records/s leave against 20 arriving, and the full batches queue. One record
  // per request at 20 records/s, each waiting about 250 ms for slow followers: the requests behind
  // it wait on the connection, in publish. 100 ms each way between the consumers and broker 3.
  private static final List<Cause> SUITE_CAUSES =
      List.of(
          new Cause(
              "dx-in-flight",
              "1:0:1:500:0:classic:false:max.in.flight.requests.per.connection=1",
              PUBLISH_LEADER,
              "produce:max\\.in\\.flight\\.requests\\.per\\.connection"),
          new Cause(
              "dx-backlog",
              "1:0:1:500:0:classic:false:max.in.flight.requests.per.connection=1,batch.size=700",
              PUBLISH_LEADER,
              "produce:batch\\.size"),
          new Cause(
              "dx-fetch-path",
              "1:0:1:500:0:classic:false",
              OTHER_LEADER,
              "fetch:fetch path from broker " + OTHER_LEADER),
          new Cause(
              "dx-send-blocked",
              "1:0:1:500:0:classic:false:buffer.memory=1024,batch.size=512",
              PUBLISH_LEADER,
              "produce:buffer\\.memory"),
          new Cause(
              "dx-held",
              "all:0:1:500:0:classic:false",
              COMMIT_LEADER,
              "publish:broker [0-9]+ follower fetch"),
          // linger.ms=500 at 20 records/s over eight partitions, each record to the next: batches
          // of a record or two, each request carrying most of the partitions' batches.
          new Cause(
              "dx-spread",
              "1:500:1:500:0:classic:false:partitioner.class="
                  + "org.apache.kafka.clients.producer.RoundRobinPartitioner",
              OTHER_LEADER,
              "produce:linger\\.ms",
              8),
          // The catch-up cause of the default test on six partitions read by one consumer.
          new Cause(
              "dx-few-consumers",
              "1:0:1:500:500:classic:false",
              OTHER_LEADER,
              "catch-up:too few consumers",
              6));

  // Seven producers take turns at one record a second, so each writes the topic every 7 s: longer
  // than its metadata.max.idle.ms (5 s, the least Kafka allows), and it refreshes its metadata
  // every second (metadata.max.age.ms), which is when it forgets an idle topic. Nearly every send()
  // then waits for the topic's metadata: a round trip on the producers' paths, 100 ms each way to
  // every broker, in a cluster of its own. Publish to the leader takes one way.
  private static final Cause METADATA =
      new Cause(
          "dx-metadata",
          "1:0:1:500:0:classic:false:"
              + AccuracyApp.PRODUCERS
              + "=7,metadata.max.idle.ms=5000,metadata.max.age.ms=1000",
          PUBLISH_LEADER,
          "produce:metadata wait");
  // Broker 1's only I/O thread recompresses another producer's large batches (BusyIoThread): the
  // records' produce requests wait in its request queue, and so do the consumer's fetches. Either
  // finding names the cause (the broker's I/O threads); the probe times each produce request, the
  // fetch queue comes from the broker's FetchConsumer means. One replica, so that commit does not
  // wait for follower fetches queued there too; one record in flight at a time.
  private static final Cause QUEUE =
      new Cause(
          "dx-queue",
          "1:0:1:500:0:classic:true",
          PUBLISH_LEADER,
          "(publish:broker "
              + PUBLISH_LEADER
              + " request queue|fetch:broker "
              + PUBLISH_LEADER
              + " fetch queue)",
          1,
          1);
  // Each record waits about 200 ms in the queue, one at a time: 20 a second would outrun the
  // consumer's deadline.
  private static final int QUEUE_PER_SECOND = 10;
  private static final int METADATA_SECONDS = 40;
  private static final int METADATA_PER_SECOND = 1;

  // Its partition needs all three replicas in the ISR (min.insync.replicas=3) for an acks=all
  // write. Once 30 records are on it, follower broker 2 stops (its controlled shutdown takes it out
  // of the ISR), stays down 5 s and starts again; until it has caught up and is back in the ISR,
  // the leader refuses new writes with NOT_ENOUGH_REPLICAS and the producer retries them. The
  // requests already appended when the follower left wait for the high watermark instead, which
  // does not move while the ISR is below min.insync.replicas (eligible leader replicas, on by
  // default in these 4.x brokers): with the default request.timeout.ms (30 s) the whole outage was
  // spent there, all in publish ('broker 3 replication' led, in one run). 2 s lets them time out
  // and be retried, refused, as a longer outage does at 30 s. The stop and start take seconds of
  // their own on a 2-core machine (13 s down in one run), so the stream runs 25 s.
  private static final Cause MIN_ISR =
      new Cause(
          "dx-min-isr",
          "all:0:1:500:0:classic:false:request.timeout.ms=2000",
          OTHER_LEADER,
          "produce:min\\.insync\\.replicas");
  private static final int MIN_ISR_FOLLOWER = COMMIT_LEADER;
  private static final int MIN_ISR_REPLICAS = 3;
  private static final int MIN_ISR_SECONDS = 25;
  private static final int MIN_ISR_PER_SECOND = 10;
  private static final long MIN_ISR_RECORDS_FIRST = 30;
  private static final Duration MIN_ISR_FOLLOWER_DOWN = Duration.ofSeconds(5);

  @Test
  @EnabledIfSystemProperty(
      named = "klat.diagnosis.suite",
      matches = "true",
      disabledReason = "the diagnosis suite's request queue cluster is opt-in")
  void requestsQueueBehindABrokersOnlyBusyIoThread() throws Exception {
    run(
        new ProxiedPaths(),
        List.of(QUEUE),
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        SECONDS,
        QUEUE_PER_SECOND,
        cluster -> new BusyIoThread(cluster, PUBLISH_LEADER));
  }

  // dx-append's 600 KB records of text arrive uncompressed and the topic keeps zstd at level 19:
  // broker 1 recompresses each one on the request's handler thread, between the queue and the
  // append (about 170 ms a record here). One record in flight at a time.
  private static final Cause APPEND =
      new Cause(
          "dx-append",
          "1:0:1:500:0:classic:true:" + AccuracyApp.VALUE_TEXT_BYTES + "=600000",
          PUBLISH_LEADER,
          "publish:broker " + PUBLISH_LEADER + " log append",
          1,
          1);

  @Test
  @EnabledIfSystemProperty(
      named = "klat.diagnosis.suite",
      matches = "true",
      disabledReason = "the diagnosis suite's slow append cluster is opt-in")
  void eachRecordsAppendIsSlowWhereTheLeaderRecompressesIt() throws Exception {
    run(
        new ProxiedPaths(),
        List.of(APPEND),
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        SECONDS,
        QUEUE_PER_SECOND,
        cluster -> {
          BusyIoThread.recompressAtZstd19(cluster, APPEND.topic);
          return () -> {};
        });
  }

  // Broker 1 leads every partition of dx-many-load (ManyPartitionsLoad) besides dx-many's one, all
  // written; the others lead a handful. acks=all: each record waits for followers that fetch all
  // those partitions from broker 1, and its request is appended beside the load's.
  // Whichever of these the top finding names (one follower ended most waits, in one run: the
  // records were held in publish behind requests waiting for it), its suggestion must name broker
  // 1's partition count. 3,000 partitions written at 6,000 records/s overran this 2-core machine
  // (the load's requests timed out after 30 s); 2,000 at 1,500 a second put dx-many's p99 at 0.5 to
  // 1.4 s in three runs.
  private static final Cause MANY_PARTITIONS =
      new Cause(
          "dx-many",
          "all:0:1:500:0:classic:false",
          PUBLISH_LEADER,
          "(commit:broker [0-9]+ (follower fetch|replication)|publish:broker ([0-9]+ follower"
              + " fetch|"
              + PUBLISH_LEADER
              + " (replication|log append|request queue)))");
  private static final int MANY_PARTITIONS_COUNT =
      Integer.getInteger("klat.diagnosis.many.partitions", 2000);
  private static final int MANY_PARTITIONS_RECORDS_PER_SECOND =
      Integer.getInteger("klat.diagnosis.many.rate", 1500);

  @Test
  @EnabledIfSystemProperty(
      named = "klat.diagnosis.suite",
      matches = "true",
      disabledReason = "the diagnosis suite's many partitions cluster is opt-in")
  void aLeaderOfManyMorePartitionsThanTheOthersIsNamed() throws Exception {
    run(
        new ProxiedPaths(),
        List.of(MANY_PARTITIONS),
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        SECONDS,
        PER_SECOND,
        cluster ->
            new ManyPartitionsLoad(
                cluster,
                PUBLISH_LEADER,
                MANY_PARTITIONS_COUNT,
                MANY_PARTITIONS_RECORDS_PER_SECOND));
  }

  @Test
  void theTopFindingOfEachTopicNamesTheCauseProvokedOnIt() throws Exception {
    run(new ProxiedPaths(), CAUSES, PUBLISH_DELAY, COMMIT_DELAY, NO_DELAY);
  }

  @Test
  @EnabledIfSystemProperty(
      named = "klat.diagnosis.suite",
      matches = "true",
      disabledReason =
          "the diagnosis suite's metadata cluster is opt-in: -Dklat.diagnosis.suite=true")
  void producersThatWriteATopicLessOftenThanMetadataMaxIdleMsWaitForItsMetadata() throws Exception {
    run(
        new ProxiedPaths(),
        List.of(METADATA),
        SUITE_DELAY,
        NO_DELAY,
        NO_DELAY,
        SUITE_DELAY,
        METADATA_SECONDS,
        METADATA_PER_SECOND,
        NO_LOAD);
  }

  @Test
  @EnabledIfSystemProperty(
      named = "klat.diagnosis.suite",
      matches = "true",
      disabledReason =
          "the diagnosis suite's second cluster is opt-in: -Dklat.diagnosis.suite=true")
  void theSuitesCausesThatNeedAPathOfTheirOwnAreNamedToo() throws Exception {
    run(ProxiedPaths.withConsumerPaths(), SUITE_CAUSES, SUITE_DELAY, SUITE_DELAY, SUITE_DELAY);
  }

  @Test
  @EnabledIfSystemProperty(
      named = "klat.diagnosis.suite",
      matches = "true",
      disabledReason = "the diagnosis suite's min.insync.replicas cluster is opt-in")
  void writesRefusedWhileAFollowerIsOutOfTheIsrNameMinInsyncReplicas() throws Exception {
    run(
        new ProxiedPaths(),
        List.of(MIN_ISR),
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        NO_DELAY,
        MIN_ISR_SECONDS,
        MIN_ISR_PER_SECOND,
        cluster ->
            new FollowerRestart(
                cluster,
                MIN_ISR.topic,
                MIN_ISR_FOLLOWER,
                MIN_ISR_RECORDS_FIRST,
                MIN_ISR_FOLLOWER_DOWN));
  }

  @Test
  @EnabledIfSystemProperty(
      named = "klat.diagnosis.suite",
      matches = "true",
      disabledReason = "the diagnosis suite's third cluster is opt-in: -Dklat.diagnosis.suite=true")
  void retriesAfterLeaderMovesAreNamed() throws Exception {
    run(new ProxiedPaths(), List.of(RETRIES), PUBLISH_DELAY, NO_DELAY, NO_DELAY);
  }

  /**
   * Provokes {@code causes} at once, with the path from the producers to broker {@value
   * #PUBLISH_LEADER}, the path from the followers to broker {@value #COMMIT_LEADER} and, where
   * {@code paths} has them, the path from the consumers to broker {@value #OTHER_LEADER} delayed,
   * and checks each topic's top finding.
   */
  private static void run(
      ProxiedPaths proxiedPaths,
      List<Cause> causes,
      Duration publishDelay,
      Duration replicationDelay,
      Duration fetchDelay)
      throws Exception {
    run(
        proxiedPaths,
        causes,
        publishDelay,
        replicationDelay,
        fetchDelay,
        NO_DELAY,
        SECONDS,
        PER_SECOND,
        NO_LOAD);
  }

  /**
   * As above, with the producers' paths to the other brokers delayed by {@code
   * otherProducerPathsDelay}, {@code seconds} of {@code perSecond} records per topic, and {@code
   * load} running beside them.
   */
  private static void run(
      ProxiedPaths proxiedPaths,
      List<Cause> causes,
      Duration publishDelay,
      Duration replicationDelay,
      Duration fetchDelay,
      Duration otherProducerPathsDelay,
      int seconds,
      int perSecond,
      Load load)
      throws Exception {
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    String endpoint = "http://127.0.0.1:" + otlpPort;
    try (ProxiedPaths paths = proxiedPaths;
        KafkaCluster cluster =
            KafkaClusterSpec.brokers(3)
                .name("diagnosis")
                .brokerProperty("default.replication.factor", "3")
                .addressInterceptor(paths.interceptor())
                .brokerProbe(Paths.get(System.getProperty("klat.broker-probe.jar")), endpoint)
                .start()) {
      for (Cause cause : causes) {
        for (String topic : List.of(cause.topic, AccuracyApp.warmupTopic(cause.topic))) {
          TopicSpec.Builder spec =
              TopicSpec.named(topic)
                  .partitions(cause.partitions)
                  .replicationFactor(cause.replicationFactor)
                  .preferredLeader(cause.leader);
          if (cause == MIN_ISR) {
            spec.minInsyncReplicas(MIN_ISR_REPLICAS);
          }
          cluster.createTopic(spec.build());
        }
      }
      String exporters =
          cluster.brokers().stream()
              .map(b -> b.nodeId() + "=" + b.metricsEndpoint())
              .collect(Collectors.joining(","));
      Process collector =
          CollectorEndToEndIT.startCollector(
              otlpPort,
              adminPort,
              "--otlp.grpc.enabled=false",
              "--brokers.exporter=" + exporters,
              "--brokers.scrape-interval=1s");
      try {
        CollectorEndToEndIT.awaitHealthy(adminPort, collector);
        if (!otherProducerPathsDelay.isZero()) {
          for (int nodeId : List.of(COMMIT_LEADER, OTHER_LEADER)) {
            paths.toLeader(nodeId).setDelay(otherProducerPathsDelay);
          }
        }
        paths.toLeader(PUBLISH_LEADER).setDelay(publishDelay);
        paths.toLeaderForFollowers(COMMIT_LEADER).setDelay(replicationDelay);
        if (!fetchDelay.isZero()) {
          paths.toLeaderForConsumers(OTHER_LEADER).setDelay(fetchDelay);
        }
        List<String> args =
            new ArrayList<>(
                List.of(
                    "both",
                    cluster.secondClientBootstrapServers(),
                    cluster.bootstrapServers(),
                    Integer.toString(seconds),
                    Integer.toString(WARMUP_SECONDS),
                    Integer.toString(perSecond)));
        for (Cause cause : causes) {
          args.add(cause.topic + ":" + cause.clients);
        }
        AppJvm.Result app;
        AutoCloseable running = load.start(cluster);
        try (LeaderMover mover =
            causes.contains(RETRIES)
                ? new LeaderMover(
                    cluster.admin(),
                    RETRIES.topic,
                    RETRIES.leader,
                    OTHER_LEADER,
                    LEADER_MOVES_EVERY)
                : null) {
          app =
              AppJvm.start(
                      CLIENTS,
                      AppJvm.agentOptions(endpoint, "1.0"),
                      AccuracyApp.class,
                      args.toArray(new String[0]))
                  .await(Duration.ofSeconds(seconds + WARMUP_SECONDS + 90L));
          if (mover != null) {
            assertThat(mover.moves()).as("leader moves").isGreaterThanOrEqualTo(5);
          }
        } finally {
          running.close();
        }
        if (running instanceof BusyIoThread busy) {
          System.out.println("busy I/O thread: " + busy.acknowledged() + " batches taken");
        }
        if (running instanceof ManyPartitionsLoad many) {
          System.out.println("many partitions load: " + many.acknowledged() + " records taken");
        }
        if (running instanceof FollowerRestart restart) {
          assertThat(restart.restarted()).as("follower restarted").isTrue();
        }
        assertThat(app.exitCode()).as(app.output()).isZero();

        Map<String, String> answers = new LinkedHashMap<>();
        SoftAssertions softly = new SoftAssertions();
        for (Cause cause : causes) {
          String answer = awaitDiagnosis(adminPort, cause.topic);
          answers.put(cause.topic, answer);
          Matcher top = TOP_FINDING.matcher(answer);
          softly
              .assertThat(top.find() ? top.group(1) + ":" + top.group(2) : "no finding")
              .as("%s: %s", cause.topic, answer)
              .containsPattern("^" + cause.expectedFinding);
          if (TOP_SUGGESTION_SAYS.containsKey(cause.topic)) {
            Matcher suggestion = TOP_SUGGESTION.matcher(answer);
            softly
                .assertThat(suggestion.find() ? suggestion.group(1) : "no suggestion")
                .as("%s: %s", cause.topic, answer)
                .contains(TOP_SUGGESTION_SAYS.get(cause.topic));
          }
        }
        answers.forEach(
            (topic, answer) -> System.out.println("diagnosis " + topic + ": " + answer));
        System.out.println(
            "collector stats: " + CollectorEndToEndIT.get(adminPort, "/api/stats", "*/*"));
        softly.assertAll();
      } finally {
        collector.destroy();
        if (!collector.waitFor(10, TimeUnit.SECONDS)) {
          collector.destroyForcibly();
        }
      }
    }
  }

  // The last records' spans reach the collector within a few export intervals of the run's end.
  private static String awaitDiagnosis(int adminPort, String topic) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    String answer;
    do {
      answer =
          CollectorEndToEndIT.get(adminPort, "/api/diagnosis?topic=" + topic + "&window=10m", null);
      if (TOP_FINDING.matcher(answer).find()) {
        return answer;
      }
      Thread.sleep(500);
    } while (System.nanoTime() < deadline);
    return answer;
  }
}
