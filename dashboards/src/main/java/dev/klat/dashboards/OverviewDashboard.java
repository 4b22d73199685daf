package dev.klat.dashboards;

import static dev.klat.dashboards.Config.AGENTS_TOPIC_GROUP;
import static dev.klat.dashboards.Config.E2E;
import static dev.klat.dashboards.Config.OPENTELEMETRY_TOPIC_GROUP;
import static dev.klat.dashboards.Config.SEGMENT;
import static dev.klat.dashboards.Config.TOPIC_GROUP;
import static dev.klat.dashboards.Dashboards.quantile;
import static dev.klat.dashboards.Dashboards.rate;
import static dev.klat.dashboards.Dashboards.trim;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.model.MetricDef;

/** {@code klat-overview.json}: end-to-end latency per topic and consumer group. */
final class OverviewDashboard {
  private OverviewDashboard() {}

  static JsonNode build() {
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
          .query(
              quantile(q, E2E, "topic, group", AGENTS_TOPIC_GROUP), "{{topic}} / {{group}}", true)
          .unit("s")
          .min(0)
          .threshold(slo);
    }
    opentelemetry(d);
    share(d);
    d.row("Throughput and lag");
    d.panel(
            "timeseries",
            "Records consumed per second",
            "Records returned by poll(), per topic and consumer group.",
            8,
            8)
        .query(
            "sum by (topic, group) (" + rate(E2E + "_count{" + AGENTS_TOPIC_GROUP + "}") + ")",
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
            "sum by (topic, client_id) ("
                + rate(MetricDef.PRODUCER_LATENCY.prometheusName() + "_count{topic=~\"$topic\"}")
                + ")",
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

  // Share groups (KIP-932, section 11 of the latency model): their end to end is in the panels
  // above
  // (group = the share group); here what only they have: redeliveries, by what ended the earlier
  // delivery, and catch-up's redelivery part.
  private static void share(DashboardBuilder d) {
    String redeliveries = MetricDef.SHARE_REDELIVERIES.prometheusName();
    d.row("Share groups: redeliveries");
    d.panel(
            "timeseries",
            "Share groups: redeliveries per second, by cause",
            "Earlier deliveries of the sampled records a share group read, by what ended each:"
                + " lock-timeout (no acknowledgement before the record was delivered again, or one"
                + " the broker refused: the acquisition lock, group.share.record.lock.duration.ms,"
                + " ran out), release, reject, renew, unknown (that delivery's span was not seen)."
                + " Empty for consumer groups.",
            8,
            8)
        .query(
            "sum by (topic, group, cause) (" + rate(redeliveries + "{" + TOPIC_GROUP + "}") + ")",
            "{{topic}} / {{group}}: {{cause}}",
            false)
        .unit("reqps")
        .min(0);
    d.panel(
            "timeseries",
            "Share groups: redeliveries per record",
            "Earlier deliveries per sampled record of each share group (0: every record accepted"
                + " at its first delivery).",
            8,
            8)
        .query(
            "sum by (topic, group) ("
                + rate(redeliveries + "{" + TOPIC_GROUP + "}")
                + ") / sum by (topic, group) ("
                + rate(MetricDef.SHARE_RECORDS.prometheusName() + "{" + TOPIC_GROUP + "}")
                + ")",
            "{{topic}} / {{group}}",
            false)
        .min(0);
    d.panel(
            "timeseries",
            "Share groups: redelivery part of catch-up, p50 and p99",
            "From a redelivered record's first acquisition to the fetch of the delivery counted:"
                + " the time its failed deliveries cost, inside catch-up. Only records whose first"
                + " delivery was seen on a related clock; the others are counted above, their part"
                + " unknown.",
            8,
            8)
        .query(
            quantile(0.5, MetricDef.SHARE_REDELIVERY.prometheusName(), "topic, group", TOPIC_GROUP),
            "p50 {{topic}} / {{group}}",
            true)
        .query(
            quantile(
                0.99, MetricDef.SHARE_REDELIVERY.prometheusName(), "topic, group", TOPIC_GROUP),
            "p99 {{topic}} / {{group}}",
            true)
        .unit("s")
        .min(0);
  }

  // Clients without klat's agent, seen through their OpenTelemetry instrumentation (section 10 of
  // the latency model): their own series (capture="opentelemetry"), never mixed with the agents'.
  private static void opentelemetry(DashboardBuilder d) {
    d.row("Clients seen through OpenTelemetry (capture=\"opentelemetry\")");
    d.panel(
            "timeseries",
            "OpenTelemetry records: end-to-end p50 and p99",
            "P - S of the records a producer or consumer without klat's agent reported through its"
                + " OpenTelemetry Kafka instrumentation, per topic and consumer group (a group"
                + " named service:<name> is a consumer whose instrumentation names no group). Their"
                + " instrumentation's sampler chose them: apart from the every-record panels above."
                + " S and P are on the clients' own clocks (quality client-clock), aligned with the"
                + " brokers' only by the records' bounds.",
            8,
            9)
        .query(
            quantile(0.5, E2E, "topic, group", OPENTELEMETRY_TOPIC_GROUP),
            "p50 {{topic}} / {{group}}",
            true)
        .query(
            quantile(0.99, E2E, "topic, group", OPENTELEMETRY_TOPIC_GROUP),
            "p99 {{topic}} / {{group}}",
            true)
        .unit("s")
        .min(0);
    d.panel(
            "timeseries",
            "OpenTelemetry records: p99 per segment (combined segments)",
            "p99 of each segment of those records. produce+publish (L - S) and catch-up+fetch"
                + " (P - H) are combined segments: without klat's agent D, F and R are unknown, so"
                + " produce and publish, catch-up and fetch cannot be told apart; commit (H - L) is"
                + " the broker probe's, exact. A side with klat's agent keeps its own segments.",
            8,
            9)
        .query(quantile(0.99, SEGMENT, "segment", OPENTELEMETRY_TOPIC_GROUP), "{{segment}}", true)
        .unit("s")
        .min(0);
    d.panel(
            "timeseries",
            "OpenTelemetry records: mean per segment, stacked",
            "Mean of each segment of those records; for records seen on both sides through an"
                + " instrumentation, produce+publish, commit and catch-up+fetch add up to their"
                + " mean end to end. Quality: client-clock for the combined segments (the client's"
                + " own clock), exact for commit.",
            8,
            9)
        .query(
            "sum by (segment) ("
                + rate(SEGMENT + "_sum{" + OPENTELEMETRY_TOPIC_GROUP + "}")
                + ") / sum by (segment) ("
                + rate(SEGMENT + "_count{" + OPENTELEMETRY_TOPIC_GROUP + "}")
                + ")",
            "{{segment}}",
            false)
        .unit("s")
        .min(0)
        .stacked(false);
  }
}
