package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings.Partitions;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokersJsonTest {

  @Test
  void aBrokerWithItsLatestIntervalAndTheDiscoveryState() {
    RequestTimings produce =
        new RequestTimings(
            50,
            1_000_000,
            2_000_000,
            0,
            0,
            500_000,
            250_000,
            3_750_000,
            1_000_000_000L,
            2_000_000_000L);
    BrokerStatus up =
        new BrokerStatus(
            1,
            true,
            List.of("exporter http://kafka-1:9404/metrics"),
            "exporter",
            true,
            2_000_000_000L,
            500_000_000L,
            null,
            0,
            0,
            Map.of(Request.PRODUCE, produce),
            new Partitions(412, 1236, -1));
    String json =
        BrokersJson.json(
            List.of(up),
            new BrokersJson.DiscoveryStatus("kafka:9092", 3_000_000_000L, "a \"quoted\" error", 2));
    assertThat(json)
        .startsWith("{\"brokers\":[{\"nodeId\":1,\"discovered\":true,")
        .contains("\"sources\":[\"exporter http://kafka-1:9404/metrics\"]")
        .contains("\"ageSeconds\":0.5", "\"lastError\":null")
        .contains("\"requests\":50", "\"requestsPerSecond\":50,")
        .contains("\"partitions\":{\"leaders\":412,\"hosted\":1236,\"underMinIsr\":null}")
        .contains(
            "\"discovery\":{\"bootstrap\":\"kafka:9092\",\"lastSuccessEpochMs\":3000,"
                + "\"lastError\":\"a \\\"quoted\\\" error\",\"errors\":2}");
  }

  @Test
  void withoutDiscoveryItsStateIsNull() {
    assertThat(BrokersJson.json(List.of(), null)).isEqualTo("{\"brokers\":[],\"discovery\":null}");
  }
}
