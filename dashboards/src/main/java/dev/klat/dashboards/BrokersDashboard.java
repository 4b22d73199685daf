package dev.klat.dashboards;

import static dev.klat.dashboards.Config.SAMPLED;
import static dev.klat.dashboards.Config.SEGMENT;
import static dev.klat.dashboards.Dashboards.quantile;
import static dev.klat.dashboards.Dashboards.rate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.model.MetricDef;

/** {@code klat-brokers.json}: publish and commit beside the leader brokers' request metrics. */
final class BrokersDashboard {
  private static final String BROKER_METRICS = "kafka_network_requestmetrics_";

  private BrokersDashboard() {}

  static JsonNode build() {
    DashboardBuilder d =
        new DashboardBuilder(
            "klat-brokers",
            "klat / brokers",
            "Publish and commit next to the leader brokers' request metrics they are split"
                + " with (JMX exporter rules in deploy/jmx-exporter/kafka-broker.yaml).");
    d.row("klat: publish and commit per leader broker (sampled records)");
    d.panel(
            "timeseries",
            "Publish L - D and commit H - L, p99, per leader broker",
            "From the collector's breakdowns, by the partition leader each record was produced to:"
                + " a broker's quantile is never mixed with another's. Quality tells how L and H"
                + " were obtained (log-append-time, or estimated from the request metrics below).",
            24,
            8)
        .query(
            quantile(0.99, SEGMENT, "broker, segment", "segment=~\"publish|commit\", " + SAMPLED),
            "{{segment}} p99, broker {{broker}}",
            true)
        .unit("s")
        .min(0);
    d.row("Produce requests, per broker (publish: queue + local; commit with acks=all: remote)");
    d.panel(
            "timeseries",
            "Produce total time p99",
            "Broker-side time of a produce request, per broker (the exporter's own quantile: never"
                + " averaged across brokers).",
            8,
            8)
        .query(brokerQuantile("totaltimems", "Produce"), "broker {{broker}}", false)
        .unit("s")
        .min(0);
    d.panel(
            "timeseries",
            "Produce queue + local time p99",
            "Request queue time and local (append) time of produce requests: the broker's part of"
                + " publish.",
            8,
            8)
        .query(brokerQuantile("requestqueuetimems", "Produce"), "queue, broker {{broker}}", false)
        .query(brokerQuantile("localtimems", "Produce"), "local, broker {{broker}}", false)
        .unit("s")
        .min(0);
    d.panel(
            "timeseries",
            "Produce remote time p99",
            "With acks=all, the wait for the in-sync replicas: the broker's view of commit.",
            8,
            8)
        .query(brokerQuantile("remotetimems", "Produce"), "broker {{broker}}", false)
        .unit("s")
        .min(0);
    d.row("The collector's reading of the broker metrics");
    d.panel(
            "timeseries",
            "Broker metrics up",
            "1 while the collector reads the broker's request metrics; at 0 its records fall back"
                + " to the timestamp (LogAppendTime topics) or to publish+commit together.",
            12,
            6)
        .query(MetricDef.COLLECTOR_BROKER_UP.prometheusName(), "broker {{broker}}", false)
        .min(0);
    d.panel(
            "timeseries",
            "Age of the last good scrape",
            "Seconds since the collector last read each broker's metrics.",
            12,
            6)
        .query(MetricDef.COLLECTOR_BROKER_SCRAPE_AGE.prometheusName(), "broker {{broker}}", false)
        .unit("s")
        .min(0);
    d.row("Replication and fetch, per broker");
    d.panel(
            "timeseries",
            "Fetch total time p99",
            "Follower fetches (they move the high watermark) and consumer fetches (long-poll"
                + " wait included: the broker's view of fetch).",
            8,
            8)
        .query(brokerQuantile("totaltimems", "FetchFollower"), "follower, broker {{broker}}", false)
        .query(brokerQuantile("totaltimems", "FetchConsumer"), "consumer, broker {{broker}}", false)
        .unit("s")
        .min(0);
    d.panel("timeseries", "Requests per second", "Produce and fetch requests per broker.", 8, 8)
        .query(
            "sum by (broker, request) (" + rate(BROKER_METRICS + "requests_total") + ")",
            "{{request}}, broker {{broker}}",
            false)
        .unit("reqps")
        .min(0);
    d.panel(
            "timeseries",
            "Under-replicated partitions and ISR shrinks",
            "A shrinking ISR or under-replicated partitions make commit slow or stall it.",
            8,
            8)
        .query(
            "sum by (broker) (kafka_server_replicamanager_underreplicatedpartitions)",
            "under-replicated, broker {{broker}}",
            false)
        .query(
            "sum by (broker) (" + rate("kafka_server_replicamanager_isrshrinks_total") + ")",
            "ISR shrinks/s, broker {{broker}}",
            false)
        .min(0);
    return d.build();
  }

  // The exporter's quantiles are milliseconds per broker; shown in seconds like every klat panel.
  private static String brokerQuantile(String metric, String request) {
    return BROKER_METRICS + metric + "{request=\"" + request + "\", quantile=\"0.99\"} / 1000";
  }
}
