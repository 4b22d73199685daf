package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;

class LabCollectorTest {

  @Test
  void theEmbeddedBrokersAreListedByTheirExportersAsBefore() {
    assertThat(
            LabCollector.brokerArguments(
                "1=http://127.0.0.1:9404/metrics,2=http://127.0.0.1:9405/metrics",
                "127.0.0.1:9092",
                null,
                null,
                null))
        .containsExactly(
            "--brokers.exporter=1=http://127.0.0.1:9404/metrics,2=http://127.0.0.1:9405/metrics",
            "--brokers.scrape-interval=2s");
  }

  @Test
  void aUserClusterWithAPortIsDiscoveredThroughTheLabsBootstrap() {
    assertThat(LabCollector.brokerArguments("", "kafka-1:9092,kafka-2:9092", 9404, null, null))
        .containsExactly(
            "--brokers.bootstrap=kafka-1:9092,kafka-2:9092",
            "--brokers.exporter-port=9404",
            "--brokers.scrape-interval=2s");
    assertThat(LabCollector.brokerArguments("", "kafka-1:9092", null, 9999, null))
        .containsExactly(
            "--brokers.bootstrap=kafka-1:9092",
            "--brokers.jmx-port=9999",
            "--brokers.scrape-interval=2s");
    assertThat(LabCollector.brokerArguments("", "kafka-1:9092", 9404, 9999, null))
        .contains("--brokers.exporter-port=9404", "--brokers.jmx-port=9999");
  }

  @Test
  void aSecuredUserClusterIsDiscoveredWithTheLabsCommandConfig() {
    assertThat(
            LabCollector.brokerArguments(
                "", "kafka-1:9093", 9404, null, Paths.get("/etc/lab-client.properties")))
        .containsExactly(
            "--brokers.bootstrap=kafka-1:9093",
            "--brokers.exporter-port=9404",
            "--brokers.kafka-config=/etc/lab-client.properties",
            "--brokers.scrape-interval=2s");
  }

  @Test
  void aUserClusterWithoutAPortIsNotRead() {
    assertThat(LabCollector.brokerArguments("", "kafka-1:9092", null, null, null)).isEmpty();
  }

  @Test
  void theCommandLineEndsWithTheBrokerArguments() throws Exception {
    LabCollector collector = new LabCollector();
    List<String> command =
        collector.command(
            Paths.get("/opt/klat-collector.jar"),
            LabCollector.brokerArguments("", "kafka-1:9092", 9404, null, null));
    assertThat(command)
        .containsSubsequence(
            "-jar",
            "/opt/klat-collector.jar",
            "--otlp.http.port=" + collector.otlpPort,
            "--admin.port=" + collector.adminPort)
        .endsWith(
            "--brokers.bootstrap=kafka-1:9092",
            "--brokers.exporter-port=9404",
            "--brokers.scrape-interval=2s");
  }

  @Test
  void theReadoutNamesTheBrokersReadAndWhyTheOthersAreNot() {
    String json =
        "{\"brokers\":[{\"nodeId\":1,\"discovered\":true,\"sources\":[\"http://k1:9404/metrics\"],"
            + "\"source\":\"http://k1:9404/metrics\",\"up\":true,\"lastError\":null},"
            + "{\"nodeId\":2,\"discovered\":true,\"sources\":[\"http://k2:9404/metrics\"],"
            + "\"source\":null,\"up\":false,\"lastError\":\"Connection refused\"}],"
            + "\"discovery\":{\"bootstrap\":\"k1:9092\",\"lastError\":null,\"errors\":0}}";
    assertThat(BrokerReadout.describe(json))
        .isEqualTo(
            "the brokers' request metrics: read from 1 of 2 brokers, 1 (http://k1:9404/metrics);"
                + " broker 2: Connection refused (records led by these get no estimate of commit"
                + " from them)");
    assertThat(
            BrokerReadout.describe(
                "{\"brokers\":[],\"discovery\":{\"bootstrap\":\"k1:9092\","
                    + "\"lastError\":\"TimeoutException: no answer\",\"errors\":2}}"))
        .isEqualTo(
            "the brokers' request metrics: no broker discovered (TimeoutException: no answer);"
                + " commit is bounded by the acks, not estimated");
  }
}
