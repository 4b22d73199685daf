package dev.klat.dashboards;

import static dev.klat.dashboards.Config.E2E;
import static dev.klat.dashboards.Config.RATE_INTERVAL;
import static dev.klat.dashboards.Config.SEGMENT;
import static dev.klat.dashboards.Config.TOPIC_GROUP;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * klat's Grafana dashboards. Every metric name comes from {@link MetricDef} or from the broker JMX
 * exporter rules in {@code deploy/jmx-exporter/kafka-broker.yaml}; {@code MetricNamesTest} checks
 * both.
 */
public final class Dashboards {
  private static final String BROKER_METRICS = "kafka_network_requestmetrics_";

  private Dashboards() {}

  /**
   * Returns every dashboard by file name.
   *
   * @return file name ({@code klat-overview.json}) to the dashboard's JSON tree, in a fixed order
   */
  public static Map<String, JsonNode> all() {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    out.put("klat-overview.json", overview());
    out.put("klat-breakdown.json", breakdown());
    out.put("klat-brokers.json", brokers());
    return out;
  }

  // A quantile of a histogram across the agents' and collector's series of one topic and group;
  // buckets are summed before the quantile is taken, never the quantiles themselves.
  private static String quantile(double q, String metric, String by, String matchers) {
    return "histogram_quantile("
        + q
        + ", sum by ("
        + by
        + ", le) (rate("
        + metric
        + "_bucket{"
        + matchers
        + "}["
        + RATE_INTERVAL
        + "])))";
  }

  static JsonNode overview() {
    double slo = Double.parseDouble(Config.SLO_THRESHOLD_SECONDS);
    DashboardBuilder d =
        new DashboardBuilder(
                "klat-overview",
                "klat / overview",
                "End-to-end latency P - S of every record, per topic and consumer group.")
            .topicAndGroupVariables();
    d.row("End-to-end latency (every record, from the record timestamp)");
    for (double q : new double[] {0.5, 0.99, 0.999}) {
      d.panel(
              "timeseries",
              "End-to-end p" + trim(q * 100),
              "p"
                  + trim(q * 100)
                  + " of P - S per topic and consumer group, from the agents' every-record"
                  + " histograms. Exemplars (dots) are sampled records: click one to open its"
                  + " five-segment trace in Tempo. The red line is the SLO threshold.",
              8,
              9)
          .query(quantile(q, E2E, "topic, group", TOPIC_GROUP), "{{topic}} / {{group}}", true)
          .unit("s")
          .min(0)
          .threshold(slo);
    }
    d.row("Throughput and lag");
    d.panel(
            "timeseries",
            "Records consumed per second",
            "Records returned by poll(), per topic and consumer group.",
            8,
            8)
        .query(
            "sum by (topic, group) (rate("
                + E2E
                + "_count{"
                + TOPIC_GROUP
                + "}["
                + RATE_INTERVAL
                + "]))",
            "{{topic}} / {{group}}",
            false)
        .unit("reqps")
        .min(0);
    d.panel(
            "timeseries",
            "Records produced per second",
            "Records acknowledged to the producers, per topic and client id (failed sends are"
                + " counted apart).",
            8,
            8)
        .query(
            "sum by (topic, client_id) (rate("
                + MetricDef.PRODUCER_LATENCY.prometheusName()
                + "_count{topic=~\"$topic\"}["
                + RATE_INTERVAL
                + "]))",
            "{{topic}} / {{client_id}}",
            false)
        .unit("reqps")
        .min(0);
    d.panel(
            "timeseries",
            "Consumer lag in time",
            "Per topic and group, the age of the oldest committed record not yet returned by"
                + " poll(), worst partition.",
            8,
            8)
        .query(
            "max by (topic, group) ("
                + MetricDef.CONSUMER_LAG_TIME.prometheusName()
                + "{"
                + TOPIC_GROUP
                + "})",
            "{{topic}} / {{group}}",
            false)
        .unit("s")
        .min(0);
    d.row("SLO: " + trim(Config.SLO_OBJECTIVE * 100) + "% of records within the threshold");
    d.panel(
            "timeseries",
            "Records slower than the SLO threshold",
            "Share of records slower than "
                + Config.SLO_THRESHOLD_SECONDS
                + " s, over 5 minutes and 1 hour (recording rules). The error budget is "
                + trim((1 - Config.SLO_OBJECTIVE) * 100)
                + "%; see dashboards/RUNBOOK.md.",
            12,
            8)
        .query(
            "topic_group:klat_e2e_latency_seconds:slow_ratio_rate5m{" + TOPIC_GROUP + "}",
            "5m {{topic}} / {{group}}",
            false)
        .query(
            "topic_group:klat_e2e_latency_seconds:slow_ratio_rate1h{" + TOPIC_GROUP + "}",
            "1h {{topic}} / {{group}}",
            false)
        .unit("percentunit")
        .min(0)
        .threshold(1 - Config.SLO_OBJECTIVE);
    d.panel(
            "timeseries",
            "Producer latency and fetch round trip p99",
            "Related quantities: producer latency A - S (what kafka-producer-perf-test reports)"
                + " and the fetch round trip R - F, every record.",
            12,
            8)
        .query(
            quantile(
                0.99,
                MetricDef.PRODUCER_LATENCY.prometheusName(),
                "topic, client_id",
                "topic=~\"$topic\""),
            "producer A - S {{topic}} / {{client_id}}",
            false)
        .query(
            quantile(
                0.99,
                MetricDef.CONSUMER_FETCH_LATENCY.prometheusName(),
                "topic, group",
                TOPIC_GROUP),
            "fetch R - F {{topic}} / {{group}}",
            false)
        .unit("s")
        .min(0);
    return d.build();
  }

  static JsonNode breakdown() {
    DashboardBuilder d =
        new DashboardBuilder(
                "klat-breakdown",
                "klat / breakdown",
                "Where the time goes: the five segments of sampled records (produce, publish,"
                    + " commit, catch-up, fetch), with the quality of each.")
            .topicAndGroupVariables();
    String segments = SEGMENT + "_bucket{" + TOPIC_GROUP + "}";
    d.row("The tail, by segment (sampled records)");
    d.panel(
            "timeseries",
            "p99 of each segment, stacked",
            "The p99 of each segment, stacked. The segments of one record add up to its"
                + " end-to-end latency, but p99s do not add up: the stack is an upper bound of the"
                + " end-to-end p99, and its layers show which segments have a tail. The exact"
                + " share of each segment in the records slower than p99 is on the collector's"
                + " live page (/api/breakdown). Exemplars open the record's trace.",
            12,
            10)
        .query(quantile(0.99, SEGMENT, "segment", TOPIC_GROUP), "{{segment}}", true)
        .unit("s")
        .stacked(false)
        .min(0);
    d.panel(
            "timeseries",
            "Mean of each segment, stacked",
            "The mean of each segment over the window, stacked: means do add up, to the mean"
                + " end-to-end latency of the sampled records.",
            12,
            10)
        .query(
            "sum by (segment) (rate("
                + SEGMENT
                + "_sum{"
                + TOPIC_GROUP
                + "}["
                + RATE_INTERVAL
                + "])) / sum by (segment) (rate("
                + SEGMENT
                + "_count{"
                + TOPIC_GROUP
                + "}["
                + RATE_INTERVAL
                + "]))",
            "{{segment}}",
            false)
        .unit("s")
        .stacked(false)
        .min(0);
    d.panel(
            "stat",
            "Segment with the largest p99",
            "The segment whose own p99 is the largest, per topic and group: the first place to"
                + " look when the end-to-end p99 is high.",
            8,
            6)
        .instantQuery(
            "topk by (topic, group) (1, topic_group_segment_quantile:"
                + SEGMENT
                + ":histogram_quantile_rate5m{quantile=\"0.99\", "
                + TOPIC_GROUP
                + "})",
            "{{topic}} / {{group}}: {{segment}}")
        .unit("s")
        .statShowsName();
    d.panel(
            "bargauge",
            "p99 by segment",
            "The last 5 minutes' p99 of every segment (recording rule), largest first.",
            8,
            6)
        .instantQuery(
            "sort_desc(max by (segment) (topic_group_segment_quantile:"
                + SEGMENT
                + ":histogram_quantile_rate5m{quantile=\"0.99\", "
                + TOPIC_GROUP
                + "}))",
            "{{segment}}")
        .unit("s");
    d.panel(
            "timeseries",
            "Quality of the breakdowns",
            "Share of sampled segments by quality: exact (agent or broker probe), log-append-time"
                + " (L from the record timestamp), estimated (from broker request metrics), none."
                + " Estimated segments are flagged, not hidden.",
            8,
            6)
        .query(
            "sum by (quality) (rate("
                + SEGMENT
                + "_count{"
                + TOPIC_GROUP
                + "}["
                + RATE_INTERVAL
                + "])) / ignoring (quality) group_left sum (rate("
                + SEGMENT
                + "_count{"
                + TOPIC_GROUP
                + "}["
                + RATE_INTERVAL
                + "]))",
            "{{quality}}",
            false)
        .unit("percentunit")
        .max(1)
        .stacked(false);
    d.row("Slowest recent messages (Tempo)");
    d.panel(
            "table",
            "Slowest recent messages",
            "Recent sampled records slower than 250 ms, from the collector's traces in Tempo,"
                + " slowest first. Each trace has one span per segment.",
            24,
            10)
        .traceQl(
            "{ resource.service.name = \"klat-collector\" && span."
                + SpanAttributes.MESSAGING_DESTINATION_NAME.name()
                + " =~ \"$topic\" && span."
                + SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name()
                + " =~ \"$group\" && duration > 250ms }",
            20)
        .sortedBy("Duration");
    d.row("Collector");
    d.panel(
            "timeseries",
            "Joins per second",
            "Breakdowns joined, and spans whose partner never came within the join window.",
            12,
            7)
        .query(
            "rate("
                + MetricDef.COLLECTOR_BREAKDOWNS_JOINED.prometheusName()
                + "["
                + RATE_INTERVAL
                + "])",
            "joined",
            false)
        .query(
            "rate("
                + MetricDef.COLLECTOR_SPANS_UNJOINED.prometheusName()
                + "["
                + RATE_INTERVAL
                + "])",
            "unjoined",
            false)
        .query(
            "rate("
                + MetricDef.COLLECTOR_INSTANTS_CLAMPED.prometheusName()
                + "["
                + RATE_INTERVAL
                + "])",
            "instants clamped",
            false)
        .unit("ops")
        .min(0);
    d.panel(
            "timeseries",
            "Clock offsets",
            "The collector's estimate of each pair of hosts' clock offset (to_host minus"
                + " from_host). Segments smaller than the uncertainty are flagged in the traces.",
            12,
            7)
        .query(MetricDef.CLOCK_OFFSET.prometheusName(), "{{from_host}} -> {{to_host}}", false)
        .unit("s");
    return d.build();
  }

  static JsonNode brokers() {
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
            quantile(0.99, SEGMENT, "broker, segment", "segment=~\"publish|commit\""),
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
            "sum by (broker, request) (rate("
                + BROKER_METRICS
                + "requests_total["
                + RATE_INTERVAL
                + "]))",
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
            "sum by (broker) (rate(kafka_server_replicamanager_isrshrinks_total["
                + RATE_INTERVAL
                + "]))",
            "ISR shrinks/s, broker {{broker}}",
            false)
        .min(0);
    return d.build();
  }

  // The exporter's quantiles are milliseconds per broker; shown in seconds like every klat panel.
  private static String brokerQuantile(String metric, String request) {
    return BROKER_METRICS + metric + "{request=\"" + request + "\", quantile=\"0.99\"} / 1000";
  }

  private static String trim(double v) {
    double rounded = Math.round(v * 1000) / 1000.0;
    return rounded == Math.rint(rounded) ? Long.toString((long) rounded) : Double.toString(rounded);
  }
}
