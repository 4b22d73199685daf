package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A running collector, in process, takes a pipeline's spans over OTLP/HTTP as the agents send them
 * (a linked output's producer span with its {@code klat.link.*} attributes) and answers {@code
 * /api/pipelines} and the pipeline histograms of {@code /metrics}.
 */
class PipelineEndToEndTest {
  private static final long T0 = 1_800_000_000_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final String TRACE = "0000000000000000000000000000abcd";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static String attr(String key, Object value) {
    return value instanceof String s
        ? "{\"key\":\"" + key + "\",\"value\":{\"stringValue\":\"" + s + "\"}}"
        : "{\"key\":\"" + key + "\",\"value\":{\"intValue\":\"" + value + "\"}}";
  }

  private static String record(String topic, long offset) {
    return attr("messaging.destination.name", topic)
        + ","
        + attr("messaging.destination.partition.id", "0")
        + ","
        + attr("messaging.kafka.offset", offset);
  }

  private static String producer(
      String spanId, String parent, String topic, long sMs, String more) {
    return "{\"traceId\":\""
        + TRACE
        + "\",\"spanId\":\""
        + spanId
        + "\",\"parentSpanId\":\""
        + parent
        + "\",\"kind\":4,\"attributes\":["
        + record(topic, 1)
        + ","
        + attr("klat.send.time_unix_nano", T0 + sMs * MS)
        + ","
        + attr("klat.drain.time_unix_nano", T0 + (sMs + 1) * MS)
        + more
        + "]}";
  }

  private static String consumer(
      String spanId, String parent, String topic, String group, long sMs) {
    return "{\"traceId\":\""
        + TRACE
        + "\",\"spanId\":\""
        + spanId
        + "\",\"parentSpanId\":\""
        + parent
        + "\",\"kind\":5,\"attributes\":["
        + record(topic, 1)
        + ","
        + attr("messaging.consumer.group.name", group)
        + ","
        + attr("klat.fetch_request.time_unix_nano", T0 + (sMs + 2) * MS)
        + ","
        + attr("klat.fetch_response.time_unix_nano", T0 + (sMs + 4) * MS)
        + ","
        + attr("klat.poll.time_unix_nano", T0 + (sMs + 5) * MS)
        + "]}";
  }

  private static String request(long instanceId, String... spans) {
    return "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
        + attr("klat.instance.id", instanceId)
        + "]},\"scopeSpans\":[{\"spans\":["
        + String.join(",", spans)
        + "]}]}]}";
  }

  private static HttpResponse<String> send(Collector c, String path, String body) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + c.otlpAddress().getPort() + path));
    return HTTP.send(
        r.header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String get(Collector c, String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + c.adminAddress().getPort() + path);
    return HTTP.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void linkedSpansBecomeANamedPipelineWithItsHistograms() throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put("otlp.http.port", "0");
    settings.put("otlp.grpc.enabled", "false");
    settings.put("admin.port", "0");
    settings.put("history.interval", "1s");
    settings.put("pipeline.names", "checkout=orders/billing");
    try (Collector c = Collector.start(CollectorConfig.of(settings))) {
      // orders@1 sent at 0 on agent 1, polled by enricher on agent 2 at 5 ms (its clock), which
      // sends orders-enriched@1 at 8 ms, linked to it; billing on agent 3 polls it.
      assertThat(
              send(c, "/v1/traces", request(1, producer("00000000000000a1", "", "orders", 0, "")))
                  .statusCode())
          .isEqualTo(200);
      String link =
          ","
              + attr("klat.link.topic", "orders")
              + ","
              + attr("klat.link.partition", 0)
              + ","
              + attr("klat.link.offset", 1)
              + ","
              + attr("klat.link.group", "enricher")
              + ","
              + attr("klat.link.count", 1);
      assertThat(
              send(
                      c,
                      "/v1/traces",
                      request(
                          2,
                          consumer("00000000000000b1", "00000000000000a1", "orders", "enricher", 0),
                          producer(
                              "00000000000000a2", "00000000000000b1", "orders-enriched", 8, link)))
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              send(
                      c,
                      "/v1/traces",
                      request(
                          3,
                          consumer(
                              "00000000000000b2",
                              "00000000000000a2",
                              "orders-enriched",
                              "billing",
                              8)))
                  .statusCode())
          .isEqualTo(200);

      JsonNode answer = JSON.readTree(get(c, "/api/pipelines?window=1h"));
      JsonNode p = answer.get("pipelines").get(0);
      assertThat(p.get("name").asText()).as(answer.toString()).isEqualTo("checkout");
      assertThat(p.get("count").asInt()).isEqualTo(1);
      assertThat(p.get("hops").get(0).get("group").asText()).isEqualTo("enricher");
      // S of the output (8 ms) minus the input's poll (5 ms), both on agent 2's clock.
      assertThat(p.get("hops").get(0).get("processing").get("p50Seconds").asDouble())
          .isEqualTo(0.003);
      assertThat(p.get("identityViolations").asInt()).isZero();

      String metrics = "";
      for (int i = 0; i < 100 && !metrics.contains("klat_pipeline_latency_seconds_count"); i++) {
        Thread.sleep(100);
        metrics = get(c, "/metrics");
      }
      assertThat(metrics)
          .contains("klat_pipeline_latency_seconds_count{pipeline=\"checkout\"} 1")
          .contains(
              "klat_pipeline_hop_latency_seconds_count{pipeline=\"checkout\",hop=\"1\","
                  + "segment=\"processing\"} 1")
          .contains("klat_pipeline_evictions_total 0");
    }
  }
}
