package dev.klat.collector.clienttelemetry;

import static dev.klat.collector.clienttelemetry.ClientPayloads.num;
import static dev.klat.collector.clienttelemetry.ClientPayloads.str;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.receive.OtlpIngest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Forwarded client telemetry through {@link OtlpIngest}, as {@code /v1/metrics} receives it, to
 * {@code /api/clients}: payloads shaped as a kafka-clients 4.4 producer and consumer and a
 * librdkafka producer and consumer push them, and hostile ones.
 */
public class ClientTelemetryIngestTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JAVA_ID = "AAAAAAAAAAAAAAAAAAAAAQ";
  private static final String RDKAFKA_ID = "3b241101-e2bb-4255-8caf-4136c566a962";

  private final long[] now = {1_000_000_000L};
  private final ClientTelemetry clients =
      new ClientTelemetry(100, 1 << 20, 60_000_000_000L, () -> now[0]);
  private final AgentMetrics agentMetrics = new AgentMetrics(100, Long.MAX_VALUE);
  private final OtlpIngest ingest =
      new OtlpIngest(
          new Correlator(
              new Correlator.Settings(60_000_000_000L, 1000, 60_000_000_000L, 100),
              () -> 0L,
              BrokerInstants.logAppendTime(),
              joined -> {}),
          agentMetrics,
          new ProbeTimelines(1, 1),
          (broker, offset, uncertainty) -> {},
          clients);

  public static ClientPayloads javaProducer(String id) {
    return ClientPayloads.javaClient(id, "orders-producer", "4.4.0")
        .clientAttribute("transactional_id", "tx-1")
        .gauge("org.apache.kafka.producer.record.queue.time.avg", 4.5)
        .gauge("org.apache.kafka.producer.record.queue.time.max", 21.0)
        .gauge("org.apache.kafka.producer.request.latency.avg", 2.25)
        .gauge("org.apache.kafka.producer.request.latency.max", 9.0)
        .gauge("org.apache.kafka.producer.produce.throttle.time.avg", 0.0)
        .gauge("org.apache.kafka.producer.node.request.latency.avg", 2.0, str("node_id", "node-1"))
        .gauge("org.apache.kafka.producer.node.request.latency.avg", 3.0, str("node_id", "node-2"))
        .gauge("org.apache.kafka.producer.topic.record.send.rate", 120.0, str("topic", "orders"))
        .gauge("org.apache.kafka.producer.topic.record.send.rate", 3.0, str("topic", "audit"))
        .sum("org.apache.kafka.producer.record.send.total", 5000)
        .sum("org.apache.kafka.producer.connection.creation.total", 2);
  }

  private JsonNode post(byte[] body) throws Exception {
    byte[] answer = ingest.metrics(body, body.length, false);
    return JSON.readTree(clients.clientsJson(null, null));
  }

  @Test
  void aJavaProducersPushIsOneInstanceWithItsOwnFigures() throws Exception {
    byte[] body = javaProducer(JAVA_ID).request();
    // The forwarder's second resource field merges into the client's, as protobuf merges it.
    ResourceMetrics first = ExportMetricsServiceRequest.parseFrom(body).getResourceMetrics(0);
    assertThat(first.getResource().getAttributesList())
        .extracting(KeyValue::getKey)
        .contains("transactional_id", "klat.client.instance_id");

    now[0] += 3_000_000_000L;
    JsonNode answer = post(body);
    now[0] += 2_000_000_000L;
    answer = JSON.readTree(clients.clientsJson(null, null));

    assertThat(answer.get("clients")).hasSize(1);
    JsonNode c = answer.get("clients").get(0);
    assertThat(c.get("clientInstanceId").asText()).isEqualTo(JAVA_ID);
    assertThat(c.get("clientId").asText()).isEqualTo("orders-producer");
    assertThat(c.get("softwareName").asText()).isEqualTo("apache-kafka-java");
    assertThat(c.get("softwareVersion").asText()).isEqualTo("4.4.0");
    assertThat(c.get("principal").asText()).isEqualTo("User:alice");
    assertThat(c.get("role").asText()).isEqualTo("producer");
    assertThat(c.get("groupId").isNull()).isTrue();
    assertThat(c.get("topics")).extracting(JsonNode::asText).containsExactly("audit", "orders");
    assertThat(c.get("brokerId").asInt()).isEqualTo(2);
    assertThat(c.get("lastPushAgeSeconds").asDouble()).isEqualTo(2.0);
    JsonNode m = c.get("metrics");
    assertThat(m.get("recordQueueTimeMs").get("avg").asDouble()).isEqualTo(4.5);
    assertThat(m.get("recordQueueTimeMs").get("max").asDouble()).isEqualTo(21.0);
    assertThat(m.get("requestLatencyMs").get("avg").asDouble()).isEqualTo(2.25);
    assertThat(m.get("requestLatencyMs").get("max").asDouble()).isEqualTo(9.0);
    // One point per broker: the slowest broker's.
    assertThat(m.get("nodeRequestLatencyMs").get("avg").asDouble()).isEqualTo(3.0);
    assertThat(m.get("nodeRequestLatencyMs").has("max")).isFalse();
    assertThat(m.has("fetchLatencyMs")).isFalse();
    assertThat(answer.get("evicted").asLong()).isZero();
    assertThat(clients.outcomes()).containsEntry(ClientTelemetry.ACCEPTED, 1L);
    // Client telemetry is not an agent's metrics: nothing reached the merger.
    assertThat(agentMetrics.streamCount()).isZero();
  }

  @Test
  void aLibrdkafkaConsumerIsReadByTheSameNames() throws Exception {
    byte[] body =
        ClientPayloads.librdkafka(RDKAFKA_ID, "rdkafka-consumer", "2.10.0")
            .clientAttribute("group_id", "billing")
            .clientAttribute("client_rack", "eu-1a")
            .gauge("org.apache.kafka.consumer.connection.creation.rate", 0.1)
            .intGauge("org.apache.kafka.consumer.node.request.latency.max", 40, num("node.id", 1))
            .intGauge("org.apache.kafka.consumer.node.request.latency.max", 70, num("node.id", 2))
            .intGauge("org.apache.kafka.consumer.coordinator.assigned.partitions", 6)
            .gauge("org.apache.kafka.consumer.fetch.manager.fetch.latency.avg", 501.5)
            .intGauge("org.apache.kafka.consumer.fetch.manager.fetch.latency.max", 503)
            .gauge("org.apache.kafka.consumer.coordinator.commit.latency.avg", 3.5)
            .intGauge("org.apache.kafka.consumer.coordinator.commit.latency.max", 12)
            .gauge("org.apache.kafka.consumer.poll.idle.ratio.avg", 0.97)
            .request();
    JsonNode c = post(body).get("clients").get(0);
    assertThat(c.get("role").asText()).isEqualTo("consumer");
    assertThat(c.get("groupId").asText()).isEqualTo("billing");
    assertThat(c.get("topics")).isEmpty();
    JsonNode m = c.get("metrics");
    assertThat(m.get("fetchLatencyMs").get("avg").asDouble()).isEqualTo(501.5);
    assertThat(m.get("fetchLatencyMs").get("max").asDouble()).isEqualTo(503.0);
    assertThat(m.get("commitLatencyMs").get("max").asDouble()).isEqualTo(12.0);
    assertThat(m.get("nodeRequestLatencyMs").get("max").asDouble()).isEqualTo(70.0);
    assertThat(m.get("pollIdleRatio").get("avg").asDouble()).isEqualTo(0.97);
    assertThat(m.has("recordQueueTimeMs")).isFalse();
  }

  @Test
  void aLaterPushReplacesTheFiguresAndNaNMeansNothingToReport() throws Exception {
    post(javaProducer(JAVA_ID).request());
    // A Java Avg or Max with no sample in its window is NaN: the figure is left out.
    JsonNode c =
        post(ClientPayloads.javaClient(JAVA_ID, "orders-producer", "4.4.0")
                .gauge("org.apache.kafka.producer.record.queue.time.avg", Double.NaN)
                .gauge("org.apache.kafka.producer.record.queue.time.max", Double.NaN)
                .gauge("org.apache.kafka.producer.request.latency.avg", 1.0)
                .request())
            .get("clients");
    assertThat(c).hasSize(1);
    assertThat(c.get(0).get("metrics").has("recordQueueTimeMs")).isFalse();
    assertThat(c.get(0).get("metrics").get("requestLatencyMs").get("avg").asDouble())
        .isEqualTo(1.0);
    assertThat(clients.stats()).containsEntry("clientTelemetryValuesRefused", 0L);
  }

  @Test
  void hostileValuesAndTopicsAreDroppedAndCountedTheRestKept() throws Exception {
    ClientPayloads p =
        javaProducer(JAVA_ID)
            .gauge("org.apache.kafka.producer.request.latency.max", -1.0)
            .gauge("org.apache.kafka.producer.produce.throttle.time.max", Double.POSITIVE_INFINITY)
            .gauge("org.apache.kafka.producer.record.queue.time.max", 1e300)
            .gauge("org.apache.kafka.producer.topic.record.send.rate", 1, str("topic", "bad/topic"))
            .gauge(
                "org.apache.kafka.producer.topic.record.send.rate",
                1,
                str("topic", "t".repeat(300)));
    for (int i = 0; i < 100; i++) {
      p.gauge("org.apache.kafka.producer.topic.record.send.rate", 1, str("topic", "t" + i));
    }
    JsonNode c = post(p.request()).get("clients").get(0);
    assertThat(c.get("topics")).hasSize(ClientTelemetryReader.MAX_TOPICS);
    assertThat(c.get("metrics").get("recordQueueTimeMs").get("max").asDouble()).isEqualTo(21.0);
    assertThat(c.get("metrics").get("requestLatencyMs").get("max").asDouble()).isEqualTo(9.0);
    assertThat(clients.stats())
        .containsEntry("clientTelemetryValuesRefused", 3L)
        .containsEntry("clientTelemetryTopicsDropped", 2L + 100 + 2 - 64);
  }

  @Test
  void aPayloadWithoutAnInstanceIdOrWithOverlongNamesIsRefusedInThePartialSuccess()
      throws Exception {
    byte[] noId = javaProducer(null).request();
    byte[] answer = ingest.metrics(noId, noId.length, false);
    ExportMetricsServiceResponse response = ExportMetricsServiceResponse.parseFrom(answer);
    assertThat(response.getPartialSuccess().getRejectedDataPoints()).isEqualTo(11);
    assertThat(response.getPartialSuccess().getErrorMessage())
        .contains("client telemetry")
        .contains("klat.client.instance_id");

    for (KeyValue hostile :
        new KeyValue[] {
          str("klat.client.instance_id", "x".repeat(65)),
          str("klat.client.instance_id", "a b"),
          str("klat.client.principal", "User:" + "a".repeat(300)),
          str("messaging.client.id", "c".repeat(256))
        }) {
      byte[] body =
          ClientPayloads.javaClient(JAVA_ID, "p", "4.4.0")
              .forwarderAttribute(hostile)
              .gauge("org.apache.kafka.producer.record.queue.time.avg", 1.0)
              .request();
      ingest.metrics(body, body.length, false);
    }
    assertThat(clients.instances()).isEmpty();
    assertThat(clients.outcomes()).containsEntry(ClientTelemetry.INVALID, 5L);
  }

  @Test
  void aClientPayloadWithoutKnownMetricsIsCountedAndOtherMetricsKeepTheirPath() throws Exception {
    byte[] admin =
        ClientPayloads.javaClient(JAVA_ID, "admin-1", "4.4.0")
            .gauge("org.apache.kafka.admin.client.connection.creation.rate", 1.0)
            .request();
    ingest.metrics(admin, admin.length, false);
    assertThat(clients.outcomes()).containsEntry(ClientTelemetry.NO_KNOWN_METRICS, 1L);
    assertThat(clients.instances()).isEmpty();

    // A resource without the mark is an agent's or another sender's, as before.
    byte[] notForwarded =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.parseFrom(
                    ExportMetricsServiceRequest.parseFrom(javaProducer(JAVA_ID).request())
                        .getResourceMetrics(0)
                        .toByteArray()))
            .build()
            .toByteArray();
    byte[] stripped = strip(notForwarded);
    ingest.metrics(stripped, stripped.length, false);
    assertThat(clients.instances()).isEmpty();
    assertThat(clients.outcomes().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(1);
  }

  // The same request without the klat.telemetry.source mark.
  private static byte[] strip(byte[] body) throws Exception {
    ExportMetricsServiceRequest.Builder r = ExportMetricsServiceRequest.parseFrom(body).toBuilder();
    for (ResourceMetrics.Builder rm : r.getResourceMetricsBuilderList()) {
      Set<String> drop = new HashSet<>(Set.of("klat.telemetry.source"));
      var attributes = rm.getResourceBuilder().getAttributesList();
      rm.getResourceBuilder().clearAttributes();
      attributes.stream()
          .filter(a -> !drop.contains(a.getKey()))
          .forEach(rm.getResourceBuilder()::addAttributes);
    }
    return r.build().toByteArray();
  }

  @Test
  void otlpJsonWithTwoResourceKeysMergesLikeProtobuf() throws Exception {
    String json =
        "{\"resourceMetrics\":[{"
            + "\"resource\":{\"attributes\":[{\"key\":\"group_id\",\"value\":{\"stringValue\":\"g\"}}]},"
            + "\"scopeMetrics\":[{\"metrics\":[{\"name\":"
            + "\"org.apache.kafka.consumer.coordinator.commit.latency.avg\","
            + "\"gauge\":{\"dataPoints\":[{\"asDouble\":7.5}]}}]}],"
            + "\"resource\":{\"attributes\":["
            + "{\"key\":\"klat.telemetry.source\",\"value\":{\"stringValue\":\"kip-714\"}},"
            + "{\"key\":\"klat.client.instance_id\",\"value\":{\"stringValue\":\"abc-1\"}},"
            + "{\"key\":\"messaging.client.id\",\"value\":{\"stringValue\":\"c1\"}}]}}]}";
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    ingest.metrics(body, body.length, true);
    ClientInstance c = clients.instances().get(0);
    assertThat(c.groupId()).isEqualTo("g");
    assertThat(c.clientId()).isEqualTo("c1");
    assertThat(c.figure(ClientFigure.COMMIT_LATENCY).avg()).isEqualTo(7.5);
  }

  @Test
  void twoClientsInOneRequestAreTwoPayloads() throws Exception {
    byte[] a = javaProducer(JAVA_ID).request();
    byte[] b = javaProducer("other-instance").request();
    byte[] both = new byte[a.length + b.length];
    System.arraycopy(a, 0, both, 0, a.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    assertThat(post(both).get("clients")).hasSize(2);
    assertThat(clients.outcomes()).containsEntry(ClientTelemetry.ACCEPTED, 2L);
  }

  @Test
  void aJoinMemberReadingTheMetricsTopicTakesClientTelemetryLikeTheReceiver() {
    // Scale-out: the ingest role wrote the forwarder's request to the metrics topic as it came.
    byte[] body = javaProducer(JAVA_ID).request();
    OtlpIngest.MetricsRead read = ingest.metricsFrom(body, AgentMetrics.TakeOver.NONE);
    assertThat(read.error()).isNull();
    assertThat(clients.instances())
        .extracting(ClientInstance::clientId)
        .containsExactly("orders-producer");
    assertThat(agentMetrics.streamCount()).isZero();
  }

  @Test
  void manyResourcesOfOneClientCostTheirNumberNotItsSquare() throws Exception {
    // 30,000 metrics, a Java client's shape (a resource each), every resource with a key of its
    // own: merging them all would copy 450 million entries (seconds, where reading takes less).
    ClientPayloads p = ClientPayloads.javaClient(JAVA_ID, "p", "4.4.0").distinctKeyPerResource();
    for (int i = 0; i < 30_000; i++) {
      p.gauge("org.apache.kafka.producer.record.queue.time.avg", i);
    }
    byte[] body = p.request();
    long start = System.nanoTime();
    ingest.metrics(body, body.length, false);
    System.out.printf(
        "30,000 resources of one client read in %d ms%n", (System.nanoTime() - start) / 1_000_000);
    assertThat(System.nanoTime() - start).isLessThan(5_000_000_000L);
    assertThat(clients.instances()).hasSize(1);
    assertThat(clients.instances().get(0).figure(ClientFigure.RECORD_QUEUE_TIME).avg())
        .isEqualTo(29_999.0);
  }
}
