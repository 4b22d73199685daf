package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ExporterTextTest {

  private static Reading parse(String text) throws IOException {
    Reading reading = new Reading(1);
    ExporterText.parse(new BufferedReader(new StringReader(text)), reading);
    return reading;
  }

  @Test
  void readsARealScrapeOfKafka44WithOurRules() throws IOException {
    // Captured from a one-broker test cluster (Kafka 4.4.0, jmx_prometheus_javaagent 1.0.1,
    // deploy/jmx-exporter/kafka-broker.yaml) after 50 produce requests with acks=all.
    Reading reading = new Reading(1);
    try (InputStream in =
        ExporterTextTest.class.getResourceAsStream("kafka-4.4.0-exporter-1.0.1.txt")) {
      ExporterText.parse(
          new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)), reading);
    }
    for (Phase phase : Phase.ALL) {
      assertThat(reading.count(Request.PRODUCE, phase)).as(phase.name()).isEqualTo(50);
      assertThat(reading.count(Request.FETCH_CONSUMER, phase)).isZero();
      assertThat(reading.count(Request.FETCH_FOLLOWER, phase)).isZero();
    }
    assertThat(reading.meanMs(Request.PRODUCE, Phase.TOTAL)).isEqualTo(7.84);
    assertThat(reading.meanMs(Request.PRODUCE, Phase.LOCAL)).isEqualTo(5.6);
    assertThat(reading.meanMs(Request.PRODUCE, Phase.REQUEST_QUEUE)).isEqualTo(0.82);
    assertThat(reading.meanMs(Request.PRODUCE, Phase.RESPONSE_QUEUE)).isEqualTo(0.46);
    assertThat(reading.meanMs(Request.PRODUCE, Phase.RESPONSE_SEND)).isEqualTo(0.56);
    assertThat(reading.meanMs(Request.PRODUCE, Phase.REMOTE)).isEqualTo(0.0);
    assertThat(reading.meanMs(Request.PRODUCE, Phase.THROTTLE)).isEqualTo(0.0);
    assertThat(reading.complete(Request.PRODUCE)).isTrue();
    assertThat(reading.partitions()).isEqualTo(new BrokerTimings.Partitions(1, 1, 0));
    assertThat(reading.isrShrinks()).isZero();
    assertThat(reading.isrExpands()).isZero();
    assertThat(reading.maxLagMessages()).isEqualTo(-1); // captured before the MaxLag rule
  }

  @Test
  void readsTheIsrChangeCountsAndTheReplicaFetcherLag() throws IOException {
    Reading r =
        parse(
            """
            # TYPE kafka_server_replicamanager_isrexpands_total counter
            kafka_server_replicamanager_isrexpands_total 4.0
            # TYPE kafka_server_replicamanager_isrshrinks_total counter
            kafka_server_replicamanager_isrshrinks_total 7.0 1700000000000
            # TYPE kafka_server_replicafetchermanager_maxlag gauge
            kafka_server_replicafetchermanager_maxlag 1250.0
            kafka_network_requestmetrics_localtimems_count{request="Produce"} 5
            """);
    assertThat(r.isrShrinks()).isEqualTo(7);
    assertThat(r.isrExpands()).isEqualTo(4);
    assertThat(r.maxLagMessages()).isEqualTo(1250);
    assertThat(r.count(Request.PRODUCE, Phase.LOCAL)).isEqualTo(5);
  }

  @Test
  void aScrapeWithoutTheIsrCountsOrTheLagLeavesThemMissing() throws IOException {
    Reading r =
        parse(
            "kafka_network_requestmetrics_localtimems_count{request=\"Produce\"} 5\n"
                + "kafka_server_replicafetchermanager_maxlag NaN\n");
    assertThat(r.any()).isTrue();
    assertThat(r.isrShrinks()).isEqualTo(-1);
    assertThat(r.isrExpands()).isEqualTo(-1);
    assertThat(r.maxLagMessages()).isEqualTo(-1);
  }

  @Test
  void rejectsMalformedIsrCountsAndLags() {
    for (String name :
        new String[] {
          "kafka_server_replicamanager_isrshrinks_total",
          "kafka_server_replicamanager_isrexpands_total",
          "kafka_server_replicafetchermanager_maxlag"
        }) {
      for (String bad :
          new String[] {name + " 1.5", name + " -1", name + " +Inf", name + " 1\n" + name + " 2"}) {
        assertThatThrownBy(() -> parse(bad + "\n"))
            .as(bad)
            .isInstanceOf(ExporterText.MalformedException.class);
      }
    }
  }

  @Test
  void readsTheReplicaManagerGauges() throws IOException {
    Reading r =
        parse(
            """
            # TYPE kafka_server_replicamanager_leadercount gauge
            kafka_server_replicamanager_leadercount 412.0
            kafka_server_replicamanager_partitioncount 1236.0 1700000000000
            kafka_server_replicamanager_underminisrpartitioncount 3.0
            kafka_server_replicamanager_underreplicatedpartitions 7.0
            kafka_network_requestmetrics_localtimems_count{request="Produce"} 5
            """);
    assertThat(r.partitions()).isEqualTo(new BrokerTimings.Partitions(412, 1236, 3));
    assertThat(r.count(Request.PRODUCE, Phase.LOCAL)).isEqualTo(5);
  }

  @Test
  void aScrapeWithoutTheReplicaManagerGaugesLeavesThemMissing() throws IOException {
    // Rules files older than the gauges: the RequestMetrics are still a good scrape.
    Reading r =
        parse(
            "kafka_network_requestmetrics_localtimems_count{request=\"Produce\"} 5\n"
                + "kafka_server_replicamanager_leadercount NaN\n");
    assertThat(r.any()).isTrue();
    assertThat(r.partitions()).isEqualTo(BrokerTimings.Partitions.UNKNOWN);
    assertThat(r.partitions().any()).isFalse();
  }

  @Test
  void rejectsMalformedReplicaManagerGauges() {
    String name = "kafka_server_replicamanager_leadercount";
    for (String bad :
        new String[] {
          name + " 1.5",
          name + " -1",
          name + " +Inf",
          name + " x",
          name + "",
          name + " 1\n" + name + " 2",
        }) {
      assertThatThrownBy(() -> parse(bad + "\n"))
          .as(bad)
          .isInstanceOf(ExporterText.MalformedException.class);
    }
  }

  @Test
  void toleratesCommentsLabelOrderEscapesTimestampsAndExponents() throws IOException {
    Reading r =
        parse(
            """
            # HELP kafka_network_requestmetrics_totaltimems_count anything "at all" \\ here
            # TYPE kafka_network_requestmetrics_totaltimems_count untyped

            # a free comment
            kafka_network_requestmetrics_totaltimems_count{cluster="a\\"b\\\\c\\nd",request="Produce",} 1.2345678E7 1700000000000
            kafka_network_requestmetrics_totaltimems_mean { request = "Produce" , x="}" } 2.5e-1
            kafka_network_requestmetrics_localtimems_mean{request="FetchConsumer"} NaN
            kafka_network_requestmetrics_localtimems_count{request="FetchConsumer"}\t+3
            kafka_network_requestmetrics_remotetimems_mean{request="FetchFollower"} +Inf
            kafka_network_requestmetrics_remotetimems_count{request="Fetch"} 7
            kafka_network_requestmetrics_totaltimems{quantile="0.99",request="Produce"} not-read
            jvm_info{version="17"} whatever { this is not ours
            """);
    assertThat(r.count(Request.PRODUCE, Phase.TOTAL)).isEqualTo(12_345_678L);
    assertThat(r.meanMs(Request.PRODUCE, Phase.TOTAL)).isEqualTo(0.25);
    assertThat(r.meanMs(Request.FETCH_CONSUMER, Phase.LOCAL)).isNaN();
    assertThat(r.count(Request.FETCH_CONSUMER, Phase.LOCAL)).isEqualTo(3);
    assertThat(r.meanMs(Request.FETCH_FOLLOWER, Phase.REMOTE)).isNaN(); // infinite: missing
    assertThat(r.count(Request.FETCH_FOLLOWER, Phase.REMOTE)).isEqualTo(-1); // request=Fetch
    assertThat(r.complete(Request.PRODUCE)).isFalse();
  }

  @Test
  void aNanCountIsMissingNotAnError() throws IOException {
    Reading r = parse("kafka_network_requestmetrics_localtimems_count{request=\"Produce\"} NaN\n");
    assertThat(r.count(Request.PRODUCE, Phase.LOCAL)).isEqualTo(-1);
    assertThat(r.any()).isFalse();
  }

  @Test
  void rejectsMalformedLinesOfTheFamiliesItReads() {
    String name = "kafka_network_requestmetrics_localtimems_count";
    for (String bad :
        new String[] {
          name + "{request=\"Produce\"} 1.5", // a fractional count
          name + "{request=\"Produce\"} -1",
          name + "{request=\"Produce\"} 0x10",
          name + "{request=\"Produce\"} 1d",
          name + "{request=\"Produce\"} Infinity",
          name + "{request=\"Produce\"}",
          name + "{request=\"Produce\"} 1 12.5",
          name + "{request=\"Produce\"} 1 2 3",
          name + "{request=\"Produce\"",
          name + "{request=Produce} 1",
          name + "{request=\"Pro\\duce\"} 1",
          name + "{request=\"Produce\" x=\"y\"} 1",
          name + "{request=\"Produce\",request=\"Produce\"} 1",
          name + "{9x=\"a\",request=\"Produce\"} 1",
          name + " 1", // no request label
          name + "{request=\"Produce\"} 1\n" + name + "{request=\"Produce\"} 2",
        }) {
      assertThatThrownBy(() -> parse(bad + "\n"))
          .as(bad)
          .isInstanceOf(ExporterText.MalformedException.class);
    }
  }

  @Test
  void ignoresOtherFamiliesWhateverTheyContain() throws IOException {
    Reading r =
        parse(
            "kafka_network_requestmetrics_localtimems_count_other{request=\"Produce\"} x\n"
                + "kafka_network_requestmetrics_localtimems{quantile=\"0.5\" broken\n"
                + "some_metric 1 2 3 4\n");
    assertThat(r.any()).isFalse();
  }
}
