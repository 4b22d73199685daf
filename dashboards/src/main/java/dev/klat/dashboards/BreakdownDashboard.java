package dev.klat.dashboards;

import static dev.klat.dashboards.Config.DIAGNOSIS;
import static dev.klat.dashboards.Config.SAMPLED_TOPIC_GROUP;
import static dev.klat.dashboards.Config.SEGMENT;
import static dev.klat.dashboards.Config.TOPIC_GROUP;
import static dev.klat.dashboards.Dashboards.quantile;
import static dev.klat.dashboards.Dashboards.rate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;

/**
 * {@code klat-breakdown.json}: the five segments of each topic and group, and the clocks they rest
 * on.
 */
final class BreakdownDashboard {
  private BreakdownDashboard() {}

  static JsonNode build() {
    DashboardBuilder d =
        new DashboardBuilder(
                "klat-breakdown",
                "klat / breakdown",
                "Where the time goes: the five segments of sampled records (produce, publish,"
                    + " commit, catch-up, fetch), with the quality of each.")
            .topicAndGroupVariables();
    String segments = SEGMENT + "_bucket{" + SAMPLED_TOPIC_GROUP + "}";
    d.row("Why: what explains the p99 tail (diagnosis)");
    String findings = "max by (segment, knob) (" + DIAGNOSIS + "{" + TOPIC_GROUP + "})";
    d.panel(
            "bargauge",
            "What explains the p99 tail",
            "The collector's diagnosis of the last diagnosis.window (5 minutes by default): each"
                + " finding names a segment and the knob or cause behind it, with the share of the"
                + " p99 tail's mean it explains. Evidence and what to change: the collector's page,"
                + " /api/diagnosis or ./klat diagnose. No bar: nothing explains the tail.",
            12,
            8)
        .instantQuery("sort_desc(" + findings + ")", "{{segment}}: {{knob}}")
        .unit("percentunit")
        .max(1);
    d.panel(
            "timeseries",
            "Findings over time",
            "Each finding's share of the p99 tail, as the collector recomputed it (every 15 s by"
                + " default): when a cause started, and whether a change made it go away.",
            12,
            8)
        .query(findings, "{{segment}}: {{knob}}", false)
        .unit("percentunit")
        .max(1)
        .min(0);
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
        .query(quantile(0.99, SEGMENT, "segment", SAMPLED_TOPIC_GROUP), "{{segment}}", true)
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
            "sum by (segment) ("
                + rate(SEGMENT + "_sum{" + SAMPLED_TOPIC_GROUP + "}")
                + ") / sum by (segment) ("
                + rate(SEGMENT + "_count{" + SAMPLED_TOPIC_GROUP + "}")
                + ")",
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
            "sum by (quality) ("
                + rate(SEGMENT + "_count{" + SAMPLED_TOPIC_GROUP + "}")
                + ") / ignoring (quality) group_left sum ("
                + rate(SEGMENT + "_count{" + SAMPLED_TOPIC_GROUP + "}")
                + ")",
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
        .query(rate(MetricDef.COLLECTOR_BREAKDOWNS_JOINED.prometheusName()), "joined", false)
        .query(rate(MetricDef.COLLECTOR_SPANS_UNJOINED.prometheusName()), "unjoined", false)
        .query(
            rate(MetricDef.COLLECTOR_INSTANTS_CLAMPED.prometheusName()), "instants clamped", false)
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
}
