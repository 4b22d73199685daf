package dev.klat.dashboards;

import static dev.klat.dashboards.Config.PIPELINE;
import static dev.klat.dashboards.Config.PIPELINE_HOP;
import static dev.klat.dashboards.Config.PIPELINE_SELECTED;
import static dev.klat.dashboards.Dashboards.quantile;
import static dev.klat.dashboards.Dashboards.rate;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code klat-pipelines.json}: pipelines of several hops (section 9 of the latency model), from the
 * collector's chains of linked sampled records: each pipeline's end to end, and each hop's five
 * segments and processing.
 */
final class PipelinesDashboard {
  private PipelinesDashboard() {}

  private static final String HOP_PART = "{{pipeline}} hop {{hop}}: {{segment}}";

  static JsonNode build() {
    DashboardBuilder d =
        new DashboardBuilder(
                "klat-pipelines",
                "klat / pipelines",
                "Pipelines of several hops (topic, consumer group, application, next topic): the"
                    + " end to end from the first send() to the last group's poll(), and each"
                    + " hop's five segments and the processing between hops, from chains of linked"
                    + " sampled records. Where the p99 tail is, exactly: the collector's page,"
                    + " /api/pipelines or ./klat diagnose --pipeline.")
            .pipelineVariable();
    d.row("End to end, per pipeline (first send() to the last group's poll())");
    d.panel(
            "timeseries",
            "Pipeline end to end",
            "p50, p99 and p99.9 of each pipeline's end to end, over its complete chains (each"
                + " final record once). A chain is only as complete as its links: the records an"
                + " application produced while processing sampled records it consumed.",
            12,
            8)
        .query(quantile(0.5, PIPELINE, "pipeline", PIPELINE_SELECTED), "{{pipeline}} p50", false)
        .query(quantile(0.99, PIPELINE, "pipeline", PIPELINE_SELECTED), "{{pipeline}} p99", false)
        .query(
            quantile(0.999, PIPELINE, "pipeline", PIPELINE_SELECTED), "{{pipeline}} p99.9", false)
        .unit("s")
        .min(0);
    d.panel(
            "stat",
            "Pipeline p99 (last 5 minutes)",
            "Each pipeline's end-to-end p99 over the last 5 minutes (recording rule).",
            6,
            8)
        .instantQuery(
            "pipeline_quantile:"
                + PIPELINE
                + ":histogram_quantile_rate5m{quantile=\"0.99\", "
                + PIPELINE_SELECTED
                + "}",
            "{{pipeline}}")
        .unit("s")
        .statShowsName();
    d.panel(
            "timeseries",
            "Complete chains per second",
            "Chains of linked sampled records that reached the pipeline's last group, per second:"
                + " how many records each pipeline's figures rest on.",
            6,
            8)
        .query(
            "sum by (pipeline) (" + rate(PIPELINE + "_count{" + PIPELINE_SELECTED + "}") + ")",
            "{{pipeline}}",
            false)
        .unit("ops")
        .min(0);
    d.row("Where the time goes: each hop's segments and processing");
    d.panel(
            "bargauge",
            "p99 of each hop's parts",
            "The last 5 minutes' p99 of every hop's segment and of the processing after it"
                + " (recording rule), largest first: which hop and part have a tail. p99s do not"
                + " add up; the mean panel's do.",
            12,
            10)
        .instantQuery(
            "sort_desc(max by (pipeline, hop, segment) (pipeline_hop_segment_quantile:"
                + PIPELINE_HOP
                + ":histogram_quantile_rate5m{quantile=\"0.99\", "
                + PIPELINE_SELECTED
                + "}))",
            HOP_PART)
        .unit("s");
    d.panel(
            "timeseries",
            "Mean of each hop's parts, stacked",
            "The mean of each hop's segments and processing, stacked: for one pipeline they add"
                + " up to its mean end to end (a chain's parts add up exactly, section 9 of the"
                + " latency model).",
            12,
            10)
        .query(
            "sum by (pipeline, hop, segment) ("
                + rate(PIPELINE_HOP + "_sum{" + PIPELINE_SELECTED + "}")
                + ") / sum by (pipeline, hop, segment) ("
                + rate(PIPELINE_HOP + "_count{" + PIPELINE_SELECTED + "}")
                + ")",
            HOP_PART,
            false)
        .unit("s")
        .stacked(false)
        .min(0);
    d.panel(
            "timeseries",
            "p99 of each hop's parts over time",
            "Each hop's segments and processing, p99 over time: when a hop's tail started. The"
                + " share of each part in the chains slower than the pipeline's p99 is on the"
                + " collector's page (its tail line names the hop and segment).",
            24,
            8)
        .query(
            quantile(0.99, PIPELINE_HOP, "pipeline, hop, segment", PIPELINE_SELECTED),
            HOP_PART,
            false)
        .unit("s")
        .min(0);
    return d.build();
  }
}
