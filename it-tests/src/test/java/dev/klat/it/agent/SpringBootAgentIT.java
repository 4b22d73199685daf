package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Spring Boot executable jar with spring-kafka ({@code it-apps/}: a {@code KafkaTemplate}
 * producer, a record listener and a batch listener), run with {@code java -javaagent -jar} as users
 * run theirs, built with Spring Boot 3.5 (kafka-clients 3.9.1) and 2.7 (kafka-clients 3.1.2), whose
 * launchers differ: each loads kafka-clients from the jar's nested {@code BOOT-INF/lib} in a class
 * loader of its own. The checks are the plain JVM's: the records carry the timing header, every
 * record is joined into a breakdown at the collector for both listeners' groups, and the
 * every-record histograms of both sides arrive. With {@code klat.micrometer.enabled=true} the same
 * histograms also appear in the application's own {@code /actuator/prometheus} (Actuator and
 * micrometer-registry-prometheus), which the test scrapes while the application lingers.
 */
class SpringBootAgentIT {
  private static final int RECORDS = 100;

  @RegisterExtension
  static final KafkaClusterExtension kafka = KafkaClusterExtension.sharedBroker();

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"spring-boot2", "spring-boot3"})
  void aSpringBootExecutableJarIsInstrumentedLikeAPlainJvm(String app) throws Exception {
    Path jar = Paths.get(System.getProperty("klat." + app + ".jar"));
    String orders = app + "-orders";
    String payments = app + "-payments";
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named(orders).partitions(2).build());
    cluster.createTopic(TopicSpec.named(payments).partitions(2).build());
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    Process collector =
        CollectorEndToEndIT.startCollector(otlpPort, adminPort, "--otlp.grpc.enabled=false");
    try {
      CollectorEndToEndIT.awaitHealthy(adminPort, collector);
      List<String> jvmOptions =
          new ArrayList<>(AppJvm.agentOptions("http://127.0.0.1:" + otlpPort, "1.0"));
      jvmOptions.add("-Dklat.micrometer.enabled=true");
      int serverPort = CollectorEndToEndIT.freePort();
      AppJvm.Running running =
          AppJvm.startJar(
              jar,
              jvmOptions,
              "--spring.kafka.bootstrap-servers=" + cluster.bootstrapServers(),
              "--app.records=" + RECORDS,
              "--app.topic=" + orders,
              "--app.batch-topic=" + payments,
              "--server.port=" + serverPort,
              "--app.linger-seconds=60");
      // Every record was acknowledged and received: klat recorded them all before that.
      running.awaitLine("LINGERING");
      String actuator = CollectorEndToEndIT.get(serverPort, "/actuator/prometheus", null);
      running.closeInput();
      AppJvm.Result run = running.await(Duration.ofSeconds(120));

      assertThat(run.exitCode()).as(run.output()).isZero();
      assertThat(run.value("SENT")).isEqualTo(Integer.toString(2 * RECORDS));
      assertThat(run.value("RECEIVED")).isEqualTo(Integer.toString(RECORDS));
      assertThat(run.value("BATCH_RECEIVED")).isEqualTo(Integer.toString(RECORDS));
      assertThat(run.output())
          .contains("klat agent started")
          .containsOnlyOnce("klat's hooks were defined in that class loader")
          .doesNotContain("hook failed")
          .doesNotContain("NoClassDefFoundError")
          .doesNotContain("is not visible to the klat agent")
          .doesNotContain("klat.micrometer.enabled is true but")
          .doesNotContain("the application's Micrometer failed");

      // The application's own Micrometer, through Actuator: every record of both sides.
      assertThat(histogramCount(actuator, MetricDef.PRODUCER_LATENCY, "topic=\"" + orders + "\""))
          .as(actuator)
          .isEqualTo(RECORDS);
      assertThat(
              histogramCount(
                  actuator, MetricDef.PRODUCER_PRODUCE_LATENCY, "topic=\"" + payments + "\""))
          .as(actuator)
          .isEqualTo(RECORDS);
      assertThat(histogramCount(actuator, MetricDef.E2E_LATENCY, "topic=\"" + orders + "\""))
          .as(actuator)
          .isEqualTo(RECORDS);
      assertThat(histogramCount(actuator, MetricDef.E2E_LATENCY, "topic=\"" + payments + "\""))
          .as(actuator)
          .isEqualTo(RECORDS);
      assertThat(histogramCount(actuator, MetricDef.CONSUMER_BUFFER_LATENCY, "group=\"sb-ledger\""))
          .as(actuator)
          .isEqualTo(RECORDS);

      for (String topic : new String[] {orders, payments}) {
        for (ConsumerRecord<String, String> record :
            RecordsOnTopic.readAll(cluster, topic, RECORDS)) {
          assertThat(RecordsOnTopic.headerCount(record, HeaderNames.TIMING))
              .as("%s %s", topic, record.key())
              .isEqualTo(1);
        }
      }
      // Every record sampled: each joins into a breakdown, for the record and the batch listener.
      assertJoined(adminPort, orders, "sb-billing");
      assertJoined(adminPort, payments, "sb-ledger");

      String scrape = CollectorEndToEndIT.get(adminPort, "/metrics", null);
      assertThat(histogramCount(scrape, MetricDef.PRODUCER_LATENCY, "topic=\"" + orders + "\""))
          .as(scrape)
          .isEqualTo(RECORDS);
      assertThat(histogramCount(scrape, MetricDef.E2E_LATENCY, "topic=\"" + payments + "\""))
          .as(scrape)
          .isEqualTo(RECORDS);
    } finally {
      collector.destroy();
      if (!collector.waitFor(10, TimeUnit.SECONDS)) {
        collector.destroyForcibly();
      }
    }
  }

  private static void assertJoined(int adminPort, String topic, String group) throws Exception {
    String query = "/api/breakdown?topic=" + topic + "&group=" + group + "&window=10m";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String answer = CollectorEndToEndIT.get(adminPort, query, null);
    while (!answer.contains("\"count\":" + RECORDS) && System.nanoTime() < deadline) {
      Thread.sleep(500);
      answer = CollectorEndToEndIT.get(adminPort, query, null);
    }
    assertThat(answer)
        .as("every record of %s joined for %s", topic, group)
        .contains("\"count\":" + RECORDS);
  }

  // The sum of the histogram's _count series whose labels contain {@code label}.
  private static long histogramCount(String scrape, MetricDef metric, String label) {
    Pattern line =
        Pattern.compile(
            "^" + Pattern.quote(metric.prometheusName()) + "_count\\{([^}]*)\\} ([0-9.eE+]+)$",
            Pattern.MULTILINE);
    Matcher m = line.matcher(scrape);
    long total = 0;
    while (m.find()) {
      if (m.group(1).contains(label)) {
        total += (long) Double.parseDouble(m.group(2));
      }
    }
    return total;
  }
}
