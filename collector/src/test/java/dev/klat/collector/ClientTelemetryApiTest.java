package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.clienttelemetry.ClientPayloads;
import dev.klat.collector.clienttelemetry.ClientTelemetryIngestTest;
import dev.klat.collector.receive.GrpcExport;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A collector in this process, as a broker's forwarder posts client telemetry (KIP-714) to its
 * {@code /v1/metrics}: {@code /api/clients}, {@code /api/breakdown}'s {@code clientTelemetry},
 * {@code /metrics} and {@code /api/stats}, under the names the contract with the IT fixes.
 */
class ClientTelemetryApiTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();
  private Collector collector;

  @BeforeEach
  void start() throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put("otlp.http.port", "0");
    settings.put("otlp.grpc.port", "0");
    settings.put("admin.port", "0");
    settings.put("clients.max-instances", "2");
    collector = Collector.start(CollectorConfig.of(settings));
  }

  @AfterEach
  void stop() {
    collector.close();
  }

  @Test
  void aForwardedProducerAndConsumerShowInTheApisAndTheMetrics() throws Exception {
    assertThat(post(ClientTelemetryIngestTest.javaProducer("AAAAAAAAAAAAAAAAAAAAAQ").request()))
        .isEqualTo(200);
    assertThat(
            post(
                ClientPayloads.librdkafka("rdk-1", "billing-consumer", "2.10.0")
                    .clientAttribute("group_id", "billing")
                    .gauge("org.apache.kafka.consumer.fetch.manager.fetch.latency.avg", 500.0)
                    .gauge("org.apache.kafka.consumer.coordinator.commit.latency.max", 12.0)
                    .request()))
        .isEqualTo(200);

    JsonNode clients = JSON.readTree(get("/api/clients"));
    assertThat(clients.get("clients")).hasSize(2);
    assertThat(clients.get("evicted").asLong()).isZero();
    JsonNode producer = clients.get("clients").get(0);
    for (String field :
        new String[] {
          "clientInstanceId",
          "clientId",
          "softwareName",
          "softwareVersion",
          "principal",
          "role",
          "groupId",
          "topics",
          "brokerId",
          "lastPushAgeSeconds",
          "metrics"
        }) {
      assertThat(producer.has(field)).as(field).isTrue();
    }
    assertThat(producer.at("/metrics/recordQueueTimeMs/max").asDouble()).isEqualTo(21.0);

    // The producer writes orders; the consumer of billing names no topic (librdkafka): both.
    JsonNode orders = JSON.readTree(get("/api/breakdown?topic=orders&group=billing"));
    assertThat(orders.get("clientTelemetry"))
        .extracting(c -> c.get("clientId").asText())
        .containsExactly("orders-producer", "billing-consumer");
    JsonNode other = JSON.readTree(get("/api/breakdown?topic=payments&group=risk"));
    assertThat(other.get("clientTelemetry")).isEmpty();
    assertThat(JSON.readTree(get("/api/clients?group=billing")).get("clients")).hasSize(1);

    String metrics = get("/metrics");
    assertThat(metrics)
        .contains(
            "klat_client_telemetry_record_queue_time_seconds{client_id=\"orders-producer\","
                + "client_software=\"apache-kafka-java/4.4.0\",principal=\"User:alice\","
                + "role=\"producer\",stat=\"max\"} 0.021")
        .contains(
            "klat_client_telemetry_fetch_latency_seconds{client_id=\"billing-consumer\","
                + "client_software=\"librdkafka/2.10.0\",principal=\"User:alice\","
                + "role=\"consumer\",stat=\"avg\"} 0.5")
        .contains("klat_collector_client_telemetry_payloads_total{outcome=\"accepted\"} 2")
        .contains("klat_collector_client_telemetry_instances 2");

    // A third instance over clients.max-instances=2 evicts the oldest push, counted.
    assertThat(post(ClientTelemetryIngestTest.javaProducer("third").request())).isEqualTo(200);
    clients = JSON.readTree(get("/api/clients"));
    assertThat(clients.get("clients"))
        .extracting(c -> c.get("clientInstanceId").asText())
        .containsExactly("rdk-1", "third");
    assertThat(clients.get("evicted").asLong()).isEqualTo(1);
    assertThat(get("/metrics"))
        .contains("klat_collector_client_telemetry_evictions_total{reason=\"max-instances\"} 1");
    assertThat(JSON.readTree(get("/api/stats")).get("clientTelemetryPayloads.accepted").asLong())
        .isEqualTo(3);
  }

  private int post(byte[] body) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + collector.otlpAddress().getPort() + "/v1/metrics");
    return HTTP.send(
            HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/x-protobuf")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  private String get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + collector.adminAddress().getPort() + path);
    return HTTP.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void overGrpcTheSamePayloadIsTheSameClient() throws Exception {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", collector.grpcAddress().getPort())
            .usePlaintext()
            .build();
    try {
      byte[] body = ClientTelemetryIngestTest.javaProducer("grpc-1").request();
      assertThat(GrpcExport.metrics(channel, body).status().getCode()).isEqualTo(Status.Code.OK);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    JsonNode clients = JSON.readTree(get("/api/clients"));
    assertThat(clients.get("clients"))
        .extracting(c -> c.get("clientInstanceId").asText())
        .containsExactly("grpc-1");
  }
}
