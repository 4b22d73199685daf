package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.testsupport.JdkIndependent;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Client telemetry (KIP-714) through the broker: a 4.4 broker with the probe and {@code
 * metric.reporters} naming klat's forwarder; a subscription made with the Admin API (the
 * producer's) and one made with {@code kafka-client-metrics.sh}'s class (the consumer's); a plain
 * kafka-clients 4.4 producer ({@code linger.ms=100}, no klat agent) and consumer. What the clients
 * push reaches the collector through a tee, with the broker's attributes (software, principal,
 * client id) added, and the producer's record queue time max is its linger. The metric names each
 * client pushed are printed once. A librdkafka producer ({@link RdkafkaNodeProducer}) pushes
 * through the same forwarder in a test of its own.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClientTelemetryIT {

  static final String FORWARDER = "dev.klat.probe.telemetry.ClientTelemetryForwarder";
  private static final String TOPIC = "client-telemetry";
  private static final String PRODUCER_ID = "ct-producer";
  private static final String CONSUMER_ID = "ct-consumer";
  private static final String GROUP = "ct-group";
  private static final int LINGER_MS = 100;
  private static final String QUEUE_TIME_MAX = "org.apache.kafka.producer.record.queue.time.max";
  private static final String RDKAFKA_ID = "ct-rdkafka-producer";
  private static final String RDKAFKA_SKIPPED = "ClientTelemetryIT's librdkafka producer";

  @Test
  void pushedClientMetricsReachTheCollectorWithTheBrokersAttributes() throws Exception {
    long started = System.nanoTime();
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    Path probe = Paths.get(System.getProperty("klat.broker-probe.jar"));
    Process collector =
        CollectorEndToEndIT.startCollector(otlpPort, adminPort, "--otlp.grpc.enabled=false");
    try (OtlpReceiver tee = OtlpReceiver.teeTo("http://127.0.0.1:" + otlpPort);
        KafkaCluster cluster =
            KafkaClusterSpec.brokers(1)
                .name("client-telemetry")
                .brokerProbe(probe, tee.endpoint())
                .brokerProperty("metric.reporters", FORWARDER)
                .start()) {
      cluster.createTopic(TopicSpec.named(TOPIC).build());
      CollectorEndToEndIT.awaitHealthy(adminPort, collector);
      System.out.println("client telemetry: broker and collector up after " + since(started));
      // Subscriptions before the clients start: a client without one asks again only after 5 min.
      try (Admin admin = Admin.create(cluster.clientProperties())) {
        subscribe(admin, "klat-producer", "org.apache.kafka.producer.", 200, PRODUCER_ID);
        runClientMetricsCommand(
            cluster.bootstrapServers(),
            "--alter",
            "--name",
            "klat-consumer",
            "--metrics",
            "org.apache.kafka.consumer.",
            "--interval",
            "500",
            "--match",
            "client_id=" + CONSUMER_ID);
        Config made = describe(admin, "klat-consumer");
        assertThat(made.get("metrics").value()).isEqualTo("org.apache.kafka.consumer.");
        assertThat(made.get("interval.ms").value()).isEqualTo("500");
        awaitSubscription(admin, "klat-producer");
      }

      System.out.println("client telemetry: subscriptions made after " + since(started));
      runClients(cluster, tee);
      System.out.println("client telemetry: both clients' pushes through after " + since(started));
      Map<String, Pushed> byClient = byClient(tee.metrics());
      Pushed producer = byClient.get(PRODUCER_ID);
      Pushed consumer = byClient.get(CONSUMER_ID);
      assertThat(producer).as("the producer's pushes").isNotNull();
      assertThat(consumer).as("the consumer's pushes").isNotNull();
      System.out.println("client telemetry: metric names the producer pushed: " + producer.names);
      System.out.println("client telemetry: metric names the consumer pushed: " + consumer.names);
      System.out.println("client telemetry: producer resource: " + producer.resource);
      System.out.println(
          "client telemetry: producer metrics with a topic: " + producer.namesWithTopic);
      System.out.println(
          "client telemetry: consumer metrics with a topic: " + consumer.namesWithTopic);
      System.out.println("client telemetry: consumer resource: " + consumer.resource);

      assertThat(producer.resource)
          .containsEntry("klat.telemetry.source", "kip-714")
          .containsEntry("messaging.client.id", PRODUCER_ID)
          .containsEntry("klat.client.software.name", "apache-kafka-java")
          .containsEntry("klat.client.software.version", "4.4.0")
          .containsEntry("klat.client.principal", "User:ANONYMOUS")
          .containsEntry("klat.client.address", "127.0.0.1")
          .containsEntry("klat.broker.id", "1")
          .containsKey("klat.client.instance_id");
      System.out.println(
          "client telemetry: producer record queue time max "
              + producer.latest.get(QUEUE_TIME_MAX)
              + " ms, avg "
              + producer.latest.get("org.apache.kafka.producer.record.queue.time.avg")
              + " ms in the last push; max over all pushes "
              + producer.max.get(QUEUE_TIME_MAX)
              + " ms (linger.ms="
              + LINGER_MS
              + ")");
      // The first record of each batch waits out the linger (the producer's first batches, which
      // waited for metadata too, are out of its 1 s metrics window by then).
      assertThat(producer.latest.get(QUEUE_TIME_MAX))
          .as("record queue time max in the last push, ms")
          .isBetween(LINGER_MS * 0.9, LINGER_MS * 5.0);
      assertThat(producer.names).allMatch(n -> n.startsWith("org.apache.kafka.producer."));
      assertThat(producer.topics).as("topics in the producer's points").contains(TOPIC);
      assertThat(consumer.topics).as("topics in the consumer's points").contains(TOPIC);
      assertThat(consumer.resource)
          .containsEntry("messaging.client.id", CONSUMER_ID)
          .containsEntry("klat.client.software.name", "apache-kafka-java")
          .containsEntry("group_id", GROUP);
      assertThat(consumer.names).allMatch(n -> n.startsWith("org.apache.kafka.consumer."));

      // What the collector made of them (docs/client-telemetry.md, "In the collector").
      JsonNode clients = awaitApiClients(adminPort);
      JsonNode producerClient = client(clients, PRODUCER_ID);
      JsonNode consumerClient = client(clients, CONSUMER_ID);
      System.out.println("client telemetry: /api/clients producer " + producerClient);
      System.out.println("client telemetry: /api/clients consumer " + consumerClient);
      assertThat(producerClient.path("clientInstanceId").asText())
          .isEqualTo(producer.resource.get("klat.client.instance_id"));
      assertThat(producerClient.path("softwareName").asText()).isEqualTo("apache-kafka-java");
      assertThat(producerClient.path("softwareVersion").asText()).isEqualTo("4.4.0");
      assertThat(producerClient.path("principal").asText()).isEqualTo("User:ANONYMOUS");
      assertThat(producerClient.path("role").asText()).isEqualTo("producer");
      assertThat(producerClient.path("brokerId").asInt()).isEqualTo(1);
      assertThat(texts(producerClient.path("topics"))).contains(TOPIC);
      assertThat(producerClient.path("metrics").path("recordQueueTimeMs").path("max").asDouble())
          .as("the producer's record queue time max in /api/clients, ms")
          .isBetween(LINGER_MS * 0.9, LINGER_MS * 5.0);
      assertThat(consumerClient.path("role").asText()).isEqualTo("consumer");
      assertThat(consumerClient.path("groupId").asText()).isEqualTo(GROUP);
      assertThat(texts(consumerClient.path("topics"))).contains(TOPIC);
      assertThat(consumerClient.path("metrics").path("fetchLatencyMs").has("max")).isTrue();
      // The pair's own view: both clients, beside the topic and group's breakdown.
      JsonNode pair =
          new ObjectMapper()
              .readTree(
                  CollectorEndToEndIT.get(
                      adminPort, "/api/clients?topic=" + TOPIC + "&group=" + GROUP, null));
      assertThat(client(pair, PRODUCER_ID)).isNotNull();
      assertThat(client(pair, CONSUMER_ID)).isNotNull();

      assertThat(Files.readString(cluster.broker(1).logFile()))
          .contains("client telemetry forwarder")
          .contains("to broker 1 (Kafka 4.4.0)");
      System.out.println(
          "ClientTelemetryIT took "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
              + " ms");
    } finally {
      collector.destroy();
      if (!collector.waitFor(10, TimeUnit.SECONDS)) {
        collector.destroyForcibly();
      }
    }
  }

  /**
   * A librdkafka 2.12.0 producer (no JVM: node-rdkafka, {@link RdkafkaNodeProducer}) subscribed
   * with the Admin API: its pushes reach the collector through the forwarder with the broker's
   * attributes (software {@code librdkafka} at the version it reports; its last push, when
   * librdkafka manages to send it, marked terminating) and its producer metrics, and {@code
   * /api/clients} lists it as a producer. Its {@code record.queue.time} is the time a built request
   * waits for the socket, not the linger (librdkafka's {@code outbuf_latency}), so its max stays
   * under the linger, unlike the Java producer's. Node.js and a C library do not depend on the JDK
   * that runs Maven: first CI pass only.
   */
  @Test
  @Tag(JdkIndependent.TAG)
  void aLibrdkafkaProducersPushesReachTheCollector() throws Exception {
    RdkafkaNodeProducer rdkafka = RdkafkaNodeProducer.require(RDKAFKA_SKIPPED);
    long started = System.nanoTime();
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    Path probe = Paths.get(System.getProperty("klat.broker-probe.jar"));
    Process collector =
        CollectorEndToEndIT.startCollector(otlpPort, adminPort, "--otlp.grpc.enabled=false");
    try (OtlpReceiver receiver = OtlpReceiver.teeTo("http://127.0.0.1:" + otlpPort);
        KafkaCluster cluster =
            KafkaClusterSpec.brokers(1)
                .name("client-telemetry-rdkafka")
                .brokerProbe(probe, receiver.endpoint())
                .brokerProperty("metric.reporters", FORWARDER)
                .start()) {
      cluster.createTopic(TopicSpec.named(TOPIC).build());
      CollectorEndToEndIT.awaitHealthy(adminPort, collector);
      try (Admin admin = Admin.create(cluster.clientProperties())) {
        subscribe(admin, "klat-rdkafka", "org.apache.kafka.producer.", 200, RDKAFKA_ID);
        awaitSubscription(admin, "klat-rdkafka");
      }
      RdkafkaNodeProducer.Run run =
          rdkafka.run(cluster.bootstrapServers(), TOPIC, RDKAFKA_ID, 40, 50, "telemetry");
      assertThat(run.delivered()).as(run.output()).isEqualTo(40);
      // The terminating push, sent as the producer closed, may still be on its way.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      Pushed pushed = byClient(receiver.metrics()).get(RDKAFKA_ID);
      while ((pushed == null || !"1".equals(pushed.resource.get("klat.client.terminating")))
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
        pushed = byClient(receiver.metrics()).get(RDKAFKA_ID);
      }
      assertThat(pushed).as("the librdkafka producer's pushes%n%s", run.output()).isNotNull();
      System.out.println("client telemetry: metric names librdkafka pushed: " + pushed.names);
      System.out.println("client telemetry: librdkafka resource: " + pushed.resource);
      System.out.println("client telemetry: librdkafka maxima: " + pushed.max);

      assertThat(run.librdkafkaVersion()).isNotNull();
      assertThat(pushed.resource)
          .containsEntry("klat.telemetry.source", "kip-714")
          .containsEntry("messaging.client.id", RDKAFKA_ID)
          .containsEntry("klat.client.software.name", "librdkafka")
          .containsEntry("klat.client.software.version", run.librdkafkaVersion())
          .containsEntry("klat.client.principal", "User:ANONYMOUS")
          .containsKey("klat.client.instance_id");
      // librdkafka's last push is best effort (rdkafka_telemetry.c, 2.12.0): skipped when a push
      // is in flight as the client closes, and awaited 1 s at most. Once CI's loaded machine
      // closed the producer without it, so its flag is checked only for its value.
      String terminating = pushed.resource.get("klat.client.terminating");
      assertThat(terminating).isIn("0", "1");
      assertThat(pushed.names)
          .allMatch(n -> n.startsWith("org.apache.kafka.producer."))
          .contains(
              QUEUE_TIME_MAX,
              "org.apache.kafka.producer.record.queue.time.avg",
              "org.apache.kafka.producer.request.latency.avg",
              "org.apache.kafka.producer.request.latency.max");
      assertThat(pushed.max.get("org.apache.kafka.producer.request.latency.max"))
          .as("produce request latency max, ms")
          .isPositive();
      assertThat(pushed.max.get(QUEUE_TIME_MAX))
          .as("librdkafka's record queue time max, ms: the request's wait for the socket")
          .isLessThan(LINGER_MS);

      JsonNode client = awaitApiClient(adminPort, RDKAFKA_ID);
      System.out.println("client telemetry: /api/clients librdkafka producer " + client);
      assertThat(client.path("softwareName").asText()).isEqualTo("librdkafka");
      assertThat(client.path("softwareVersion").asText()).isEqualTo(run.librdkafkaVersion());
      assertThat(client.path("role").asText()).isEqualTo("producer");
      assertThat(client.path("metrics").path("recordQueueTimeMs").has("max")).isTrue();
      if ("1".equals(terminating)) {
        awaitApiClient(
            adminPort,
            RDKAFKA_ID,
            c -> c.path("terminating").asBoolean(),
            " as terminating, as its last push said");
      } else {
        System.out.println("client telemetry: librdkafka closed without its terminating push");
      }
      System.out.println(
          "ClientTelemetryIT (librdkafka) took "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
              + " ms");
    } finally {
      collector.destroy();
      if (!collector.waitFor(10, TimeUnit.SECONDS)) {
        collector.destroyForcibly();
      }
    }
  }

  /** {@code /api/clients}' entry of one client once it lists it, at most 10 s. */
  private static JsonNode awaitApiClient(int adminPort, String clientId) throws Exception {
    return awaitApiClient(adminPort, clientId, client -> true, "");
  }

  /** {@code /api/clients}' entry of one client once it is as {@code wanted}, at most 10 s. */
  private static JsonNode awaitApiClient(
      int adminPort, String clientId, java.util.function.Predicate<JsonNode> wanted, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      JsonNode clients =
          new ObjectMapper().readTree(CollectorEndToEndIT.get(adminPort, "/api/clients", null));
      JsonNode client = client(clients, clientId);
      if (client != null && wanted.test(client)) {
        return client;
      }
      assertThat(System.nanoTime())
          .as("/api/clients lists %s%s: %s", clientId, what, clients)
          .isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  /** {@code /api/clients} once it lists both clients, at most 10 s. */
  private static JsonNode awaitApiClients(int adminPort) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      JsonNode clients =
          new ObjectMapper().readTree(CollectorEndToEndIT.get(adminPort, "/api/clients", null));
      if (client(clients, PRODUCER_ID) != null && client(clients, CONSUMER_ID) != null) {
        return clients;
      }
      assertThat(System.nanoTime()).as("/api/clients lists both: %s", clients).isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static JsonNode client(JsonNode answer, String clientId) {
    for (JsonNode client : answer.path("clients")) {
      if (clientId.equals(client.path("clientId").asText())) {
        return client;
      }
    }
    return null;
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(node -> texts.add(node.asText()));
    return texts;
  }

  private static String since(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms";
  }

  private static void subscribe(
      Admin admin, String name, String metrics, int intervalMs, String clientId) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, name);
    List<AlterConfigOp> ops =
        List.of(
            new AlterConfigOp(new ConfigEntry("metrics", metrics), AlterConfigOp.OpType.SET),
            new AlterConfigOp(
                new ConfigEntry("interval.ms", Integer.toString(intervalMs)),
                AlterConfigOp.OpType.SET),
            new AlterConfigOp(
                new ConfigEntry("match", "client_id=" + clientId), AlterConfigOp.OpType.SET));
    admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
  }

  /** Until the broker serves the subscription: a client that asks before it waits 5 minutes. */
  private static void awaitSubscription(Admin admin, String name) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (describe(admin, name).get("metrics") == null
        || describe(admin, name).get("metrics").value().isEmpty()) {
      assertThat(System.nanoTime()).as("subscription %s served", name).isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  private static Config describe(Admin admin, String name) throws Exception {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, name);
    return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
  }

  /**
   * Runs {@code kafka-client-metrics.sh}'s class in a JVM of its own: kafka-tools 4.3.1 (the newest
   * on Maven Central) with its kafka-clients 4.3.1, against the 4.4 broker.
   */
  private static void runClientMetricsCommand(String bootstrapServers, String... args)
      throws Exception {
    Path tools = Paths.get(System.getProperty("klat.kafka-tools.dir"));
    Path clients = Paths.get(System.getProperty("klat.kafka-clients.dir"));
    List<String> classPath = new ArrayList<>();
    for (Path dir : List.of(tools, clients.resolve("4.3.1-streams"), clients.resolve("common"))) {
      try (Stream<Path> jars = Files.list(dir)) {
        classPath.addAll(
            jars.filter(p -> p.toString().endsWith(".jar"))
                .filter(p -> !p.getFileName().toString().startsWith("kafka-streams"))
                .map(Path::toString)
                .collect(Collectors.toList()));
      }
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-cp",
                String.join(File.pathSeparator, classPath),
                "org.apache.kafka.tools.ClientMetricsCommand",
                "--bootstrap-server",
                bootstrapServers));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    System.out.println("kafka-client-metrics.sh " + String.join(" ", args) + ": " + output.trim());
    assertThat(process.exitValue()).as(output).isZero();
  }

  /**
   * Produces a record every 20 ms and consumes them until both clients' pushes with their metrics
   * have come through the tee, at most 25 s.
   */
  private static void runClients(KafkaCluster cluster, OtlpReceiver tee) throws Exception {
    Properties p = cluster.clientProperties();
    p.put("client.id", PRODUCER_ID);
    p.put("linger.ms", Integer.toString(LINGER_MS));
    // Its max and average over the last second (2 samples of 500 ms), not Kafka's default 60 s,
    // which would hold the first batches' wait for metadata.
    p.put("metrics.sample.window.ms", "500");
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    Properties c = cluster.clientProperties();
    c.put("client.id", CONSUMER_ID);
    c.put("group.id", GROUP);
    c.put("auto.offset.reset", "earliest");
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", StringDeserializer.class.getName());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(TOPIC));
      System.out.println(
          "client telemetry: producer instance "
              + producer.clientInstanceId(Duration.ofSeconds(10)));
      int sent = 0;
      while (System.nanoTime() < deadline) {
        producer.send(new ProducerRecord<>(TOPIC, "k", "v" + sent++));
        consumer.poll(Duration.ofMillis(20));
        if (sent % 25 == 0 && bothPushed(tee)) {
          // A few more pushes, past the producer's 1 s metrics window from its first batches.
          long more = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
          while (System.nanoTime() < more) {
            producer.send(new ProducerRecord<>(TOPIC, "k", "v" + sent++));
            consumer.poll(Duration.ofMillis(20));
          }
          return;
        }
      }
    }
  }

  private static boolean bothPushed(OtlpReceiver tee) {
    Map<String, Pushed> byClient = byClient(tee.metrics());
    return byClient.containsKey(CONSUMER_ID)
        && byClient.containsKey(PRODUCER_ID)
        && byClient.get(PRODUCER_ID).max.containsKey(QUEUE_TIME_MAX);
  }

  /**
   * What one client pushed, over all its pushes: the Java client sends a ResourceMetrics a metric.
   */
  static final class Pushed {
    final Map<String, String> resource = new TreeMap<>();
    final TreeSet<String> names = new TreeSet<>();
    final Map<String, Double> max = new TreeMap<>();
    // The newest finite value of each metric, in the order the tee received the pushes.
    final Map<String, Double> latest = new TreeMap<>();
    // The values of the points' "topic" attribute: the topics the client writes or reads.
    final TreeSet<String> topics = new TreeSet<>();
    final TreeSet<String> namesWithTopic = new TreeSet<>();
  }

  /** The forwarded pushes by client id. */
  private static Map<String, Pushed> byClient(List<ExportMetricsServiceRequest> requests) {
    Map<String, Pushed> byClient = new TreeMap<>();
    for (ExportMetricsServiceRequest request : requests) {
      for (ResourceMetrics resourceMetrics : request.getResourceMetricsList()) {
        Map<String, String> resource = resource(resourceMetrics);
        if (!"kip-714".equals(resource.get("klat.telemetry.source"))) {
          continue;
        }
        Pushed pushed =
            byClient.computeIfAbsent(resource.get("messaging.client.id"), id -> new Pushed());
        pushed.resource.putAll(resource);
        for (ScopeMetrics scope : resourceMetrics.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            pushed.names.add(metric.getName());
            List<NumberDataPoint> points =
                metric.hasGauge()
                    ? metric.getGauge().getDataPointsList()
                    : metric.getSum().getDataPointsList();
            for (NumberDataPoint point : points) {
              for (KeyValue attribute : point.getAttributesList()) {
                if (attribute.getKey().equals("topic")) {
                  pushed.topics.add(attribute.getValue().getStringValue());
                  pushed.namesWithTopic.add(metric.getName());
                }
              }
              double v = point.hasAsDouble() ? point.getAsDouble() : point.getAsInt();
              // A max or an average over a window without samples is pushed as NaN.
              if (Double.isFinite(v)) {
                pushed.max.merge(metric.getName(), v, Math::max);
                pushed.latest.put(metric.getName(), v);
              }
            }
          }
        }
      }
    }
    return byClient;
  }

  private static Map<String, String> resource(ResourceMetrics resourceMetrics) {
    Map<String, String> attributes = new TreeMap<>();
    for (KeyValue attribute : resourceMetrics.getResource().getAttributesList()) {
      attributes.put(
          attribute.getKey(),
          attribute.getValue().hasIntValue()
              ? Long.toString(attribute.getValue().getIntValue())
              : attribute.getValue().getStringValue());
    }
    return attributes;
  }
}
