package dev.klat.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Proves the three-broker fixture: replication with {@code min.insync.replicas=2}, durability of
 * acknowledged records across a SIGKILL, pause and resume, and broker request metrics over the JMX
 * exporter and over JMX.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
// The test fixture, not klat: CI runs it on its first JDK only (JdkIndependent). On the second,
// every IT starts its brokers through this fixture, and BrokerMetricsIT, BrokerProbeIT and
// TailCaptureIT kill, restart and pause them.
@Tag("jdk-independent")
class ThreeBrokerClusterIT {

  @RegisterExtension static final KafkaClusterExtension kafka = KafkaClusterExtension.brokers(3);

  private static TopicSpec replicatedTopic(String name, int partitions) {
    return TopicSpec.named(name)
        .partitions(partitions)
        .replicationFactor(3)
        .minInsyncReplicas(2)
        .build();
  }

  @Test
  void acksAllRecordsReachAConsumerGroup() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(replicatedTopic("acks-all", 3));

    try (Admin admin = cluster.admin()) {
      TopicDescription description =
          admin.describeTopics(Set.of("acks-all")).allTopicNames().get().get("acks-all");
      for (TopicPartitionInfo partition : description.partitions()) {
        assertThat(partition.replicas()).hasSize(3);
        assertThat(partition.isr()).hasSize(3);
      }
    }

    Set<String> acknowledged = Clients.produce(cluster, "acks-all", "record-", 0, 2000);
    assertThat(acknowledged).hasSize(2000);

    Map<String, Integer> consumed =
        Clients.consumeUntil(
            cluster, "acks-all", "acks-all-group", acknowledged, Duration.ofSeconds(60));
    assertThat(consumed.keySet()).containsAll(acknowledged);
    assertThat(consumed.values()).allMatch(count -> count == 1);
  }

  @Test
  void killedBrokerDoesNotLoseAnAcknowledgedRecord() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(replicatedTopic("durable", 3));
    Broker victim = cluster.broker(leaderOfPartitionZero(cluster, "durable"));

    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicBoolean keepProducing = new AtomicBoolean(true);
    AtomicReference<Throwable> producerFailure = new AtomicReference<>();
    AtomicInteger sequence = new AtomicInteger();
    Thread producer =
        new Thread(
            () -> {
              try {
                Clients.produceWhile(
                    cluster, "durable", "durable-", sequence, keepProducing, acknowledged);
              } catch (Throwable t) {
                producerFailure.set(t);
              }
            },
            "durable-producer");
    producer.start();

    awaitAtLeast(acknowledged, 500, Duration.ofSeconds(60));
    victim.kill();
    assertThat(victim.isRunning()).isFalse();
    int ackedAtKill = acknowledged.size();
    // The survivors must keep accepting acks=all records: two replicas still meet min.insync.
    awaitAtLeast(acknowledged, ackedAtKill + 500, Duration.ofSeconds(90));
    keepProducing.set(false);
    producer.join(60_000);
    assertThat(producerFailure.get()).isNull();

    Map<String, Integer> consumed =
        Clients.consumeUntil(
            cluster, "durable", "durable-group", acknowledged, Duration.ofSeconds(90));
    Set<String> lost = new HashSet<>(acknowledged);
    lost.removeAll(consumed.keySet());
    assertThat(lost).as("acknowledged records missing after SIGKILL of the leader").isEmpty();

    victim.start();
    assertThat(victim.isRunning()).isTrue();
    awaitFullIsr(cluster, "durable", Duration.ofSeconds(90));
  }

  @Test
  void pausedBrokerFreezesAndResumes() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    Broker broker = cluster.broker(2);
    long pid = broker.pid();

    broker.pause();
    try {
      assertThat(processState(pid)).isEqualTo('T');
      assertThat(broker.isRunning()).isTrue();
      // Frozen, not gone: the port is open but nothing answers.
      assertThatThrownBy(
              () -> BrokerMetrics.scrape(broker.metricsEndpoint(), Duration.ofSeconds(1)))
          .isInstanceOf(java.net.http.HttpTimeoutException.class);
    } finally {
      broker.resume();
    }
    assertThat(processState(pid)).isNotEqualTo('T');

    cluster.createTopic(replicatedTopic("after-pause", 1));
    assertThat(Clients.produce(cluster, "after-pause", "p-", 0, 100)).hasSize(100);
  }

  @Test
  void produceRequestTimingsAreRealNumbersOnEveryBroker() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    // Six partitions over three brokers: every broker leads some, so every broker serves Produce
    // requests, follower fetches and consumer fetches.
    cluster.createTopic(replicatedTopic("timed", 6));
    assertThat(leadersOf(cluster, "timed")).containsExactlyInAnyOrder(1, 2, 3);
    Set<String> produced = Clients.produce(cluster, "timed", "t-", 0, 3000);
    Clients.consumeUntil(cluster, "timed", "timed-group", produced, Duration.ofSeconds(60));

    for (Broker broker : cluster.brokers()) {
      BrokerMetrics metrics = BrokerMetrics.scrape(broker.metricsEndpoint());
      for (String metric :
          new String[] {
            "requestqueuetimems",
            "localtimems",
            "remotetimems",
            "responsequeuetimems",
            "responsesendtimems",
            "totaltimems"
          }) {
        for (String quantile : new String[] {"0.50", "0.99", "0.999"}) {
          double value =
              metrics.value(
                  "kafka_network_requestmetrics_" + metric,
                  Map.of("request", "Produce", "quantile", quantile));
          assertThat(value).as("%s %s p%s", broker, metric, quantile).isFinite().isNotNegative();
        }
        assertThat(
                metrics.value(
                    "kafka_network_requestmetrics_" + metric + "_count",
                    Map.of("request", "Produce")))
            .as("%s Produce %s count", broker, metric)
            .isPositive();
      }
      double totalMean =
          metrics.value(
              "kafka_network_requestmetrics_totaltimems_mean", Map.of("request", "Produce"));
      double remoteMean =
          metrics.value(
              "kafka_network_requestmetrics_remotetimems_mean", Map.of("request", "Produce"));
      assertThat(totalMean)
          .as("%s Produce total >= remote", broker)
          .isGreaterThanOrEqualTo(remoteMean);
      // Every broker leads two of the six partitions: followers and the consumer fetched from it.
      for (String fetch : new String[] {"FetchFollower", "FetchConsumer"}) {
        assertThat(
                metrics.value(
                    "kafka_network_requestmetrics_totaltimems_count", Map.of("request", fetch)))
            .as("%s %s count", broker, fetch)
            .isPositive();
        assertThat(
                metrics.value(
                    "kafka_network_requestmetrics_remotetimems",
                    Map.of("request", fetch, "quantile", "0.99")))
            .isFinite()
            .isNotNegative();
      }
      assertThat(metrics.names()).contains("kafka_network_requestmetrics_requests_total");

      long jmxCount = jmxProduceCount(broker);
      assertThat(jmxCount).as("%s Produce TotalTimeMs count over JMX", broker).isPositive();
    }
  }

  private static long jmxProduceCount(Broker broker) throws Exception {
    try (JMXConnector connector =
        JMXConnectorFactory.connect(new JMXServiceURL(broker.jmxServiceUrl()))) {
      MBeanServerConnection connection = connector.getMBeanServerConnection();
      return (Long)
          connection.getAttribute(
              new ObjectName("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce"),
              "Count");
    }
  }

  private static Set<Integer> leadersOf(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      Set<Integer> leaders = new HashSet<>();
      admin
          .describeTopics(Set.of(topic))
          .allTopicNames()
          .get()
          .get(topic)
          .partitions()
          .forEach(partition -> leaders.add(partition.leader().id()));
      return leaders;
    }
  }

  private static int leaderOfPartitionZero(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      return admin
          .describeTopics(Set.of(topic))
          .allTopicNames()
          .get()
          .get(topic)
          .partitions()
          .get(0)
          .leader()
          .id();
    }
  }

  private static void awaitFullIsr(KafkaCluster cluster, String topic, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = cluster.admin()) {
      while (true) {
        TopicDescription description =
            admin.describeTopics(Set.of(topic)).allTopicNames().get().get(topic);
        if (description.partitions().stream().allMatch(p -> p.isr().size() == 3)) {
          return;
        }
        assertThat(System.nanoTime()).as("ISR of %s back to 3", topic).isLessThan(deadline);
        Thread.sleep(250);
      }
    }
  }

  private static void awaitAtLeast(Set<String> acknowledged, int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (acknowledged.size() < count) {
      assertThat(System.nanoTime())
          .as("%d acknowledged records, waiting for %d", acknowledged.size(), count)
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /** The state letter of /proc/PID/stat: R, S, D, T (stopped), Z... */
  private static char processState(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
  }
}
