package dev.klat.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The lab's report: one self-contained HTML page (inline CSS and SVG, nothing fetched), per
 * experiment what it varied, what the cluster showed in words, throughput and the p99 tail by
 * segment per setting, and the figures as a table.
 */
final class HtmlReport {

  private HtmlReport() {}

  /**
   * @param context lines about the run (cluster, machine, command, plan), shown at the top
   */
  static String of(List<String> context, Plan plan, List<Result> results) {
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    html.append("<title>klat lab report</title>\n<style>\n");
    html.append(
        "body{font-family:sans-serif;margin:24px;max-width:1040px;color:#222}"
            + "h2{margin-top:36px;border-bottom:1px solid #ccc}"
            + ".charts{display:flex;flex-wrap:wrap;gap:12px}"
            + "table{border-collapse:collapse;font-size:12px;margin-top:8px}"
            + "td,th{border:1px solid #ddd;padding:3px 6px;text-align:right;white-space:nowrap}"
            + "td:first-child,th:first-child{text-align:left}"
            + ".finding{margin:4px 0}.muted{color:#666;font-size:13px}"
            + ".range{color:#666;font-size:10px}\n");
    html.append("</style></head><body>\n<h1>klat lab: which segment each setting moves</h1>\n");
    html.append("<ul class=\"muted\">\n");
    for (String line : context) {
      html.append("<li>").append(Charts.escape(line)).append("</li>\n");
    }
    for (String skipped : plan.skipped()) {
      html.append("<li>skipped: ").append(Charts.escape(skipped)).append("</li>\n");
    }
    html.append("</ul>\n");
    for (Experiment experiment : plan.experiments()) {
      List<Result> own = new ArrayList<>();
      for (Result result : results) {
        if (result.experiment().name().equals(experiment.name())) {
          own.add(result);
        }
      }
      if (!own.isEmpty()) {
        section(html, experiment, own);
      }
    }
    html.append("</body></html>\n");
    return html.toString();
  }

  private static void section(StringBuilder html, Experiment experiment, List<Result> results) {
    html.append("<section data-experiment=\"")
        .append(Charts.escape(experiment.name()))
        .append("\">\n<h2>")
        .append(Charts.escape(experiment.name()))
        .append(": ")
        .append(Charts.escape(experiment.knob()))
        .append("</h2>\n<p class=\"muted\">held: ")
        .append(Charts.escape(experiment.held()))
        .append("</p>\n");
    for (String finding : Findings.of(results)) {
      html.append("<p class=\"finding\">").append(Charts.escape(finding)).append("</p>\n");
    }
    List<SettingRuns> settings = SettingRuns.of(results);
    List<String> labels = new ArrayList<>();
    List<Spread> throughput = new ArrayList<>();
    List<Map<String, Spread>> tails = new ArrayList<>();
    List<Spread> p99 = new ArrayList<>();
    List<Spread> consumer = new ArrayList<>();
    boolean unbounded = results.stream().anyMatch(r -> r.burstRecordsPerSecond() != null);
    for (SettingRuns runs : settings) {
      labels.add(runs.setting().label());
      throughput.add(runs.error() != null ? null : unbounded ? runs.burst() : runs.fixedRate());
      Map<String, Spread> tail = new LinkedHashMap<>();
      for (String segment : Findings.SEGMENTS) {
        Spread ms = runs.tail(segment);
        if (ms != null) {
          tail.put(segment, ms);
        }
      }
      tails.add(tail);
      p99.add(runs.p99());
      consumer.add(runs.consumer());
    }
    int repeats = settings.stream().mapToInt(r -> r.runs().size()).max().orElse(1);
    String median = repeats > 1 ? ", median of " + repeats + " runs" : "";
    html.append("<div class=\"charts\">\n");
    html.append(
        Charts.bars(
            "throughput",
            (unbounded ? "throughput, unbounded rate" : "throughput at the fixed rate") + median,
            "records/s",
            labels,
            throughput));
    html.append(
        Charts.stacked("p99 tail by segment; tick: end-to-end p99" + median, labels, tails, p99));
    if (consumer.stream().anyMatch(c -> c != null)) {
      html.append(
          Charts.bars(
              "consumer",
              "consumer throughput, reading the unbounded run's records" + median,
              "records/s",
              labels,
              consumer));
    }
    html.append("</div>\n");
    table(html, settings);
    html.append("</section>\n");
  }

  private static void table(StringBuilder html, List<SettingRuns> settings) {
    boolean repeated = settings.stream().anyMatch(r -> r.runs().size() > 1);
    html.append("<table><tr><th>setting</th>");
    if (repeated) {
      html.append("<th>runs</th>");
    }
    boolean consumer = settings.stream().anyMatch(r -> r.consumer() != null);
    html.append("<th>records/s fixed</th><th>records/s unbounded</th>");
    if (consumer) {
      html.append("<th>consumer records/s</th>");
    }
    html.append("<th>breakdowns</th><th>p50</th><th>p99</th><th>p99.9</th>");
    // Only the segments some setting knows: publish+commit appears only without broker timings.
    List<String> segments = new ArrayList<>();
    for (String segment : Findings.SEGMENTS) {
      if (settings.stream().anyMatch(r -> r.tailMs(segment) != null)) {
        segments.add(segment);
      }
    }
    for (String segment : segments) {
      html.append("<th>tail ").append(Charts.escape(segment)).append("</th>");
    }
    html.append("</tr>\n");
    for (SettingRuns runs : settings) {
      html.append("<tr><td>").append(Charts.escape(runs.setting().label())).append("</td>");
      if (repeated) {
        cell(
            html,
            runs.runs().size()
                + (runs.failedRuns() > 0 ? " (" + runs.failedRuns() + " failed)" : ""));
      }
      if (runs.error() == null) {
        rateCell(html, runs.fixedRate());
      } else {
        cell(html, "failed");
      }
      rateCell(html, runs.burst());
      if (consumer) {
        rateCell(html, runs.consumer());
      }
      cell(html, Long.toString(runs.breakdowns()));
      msCell(html, runs.e2eP50());
      msCell(html, runs.p99());
      msCell(html, runs.p999());
      for (String segment : segments) {
        msCell(html, runs.tail(segment));
      }
      html.append("</tr>\n");
    }
    html.append("</table>\n");
    if (repeated) {
      html.append(
          "<p class=\"muted\">Each figure is the median of the setting's runs, with the lowest"
              + " and highest run under it; every run is a row of the CSV.</p>\n");
    }
  }

  // The median, and under it the runs' range in small print, so that the table stays narrow.
  private static void msCell(StringBuilder html, Spread spread) {
    if (spread == null || !spread.shownMs()) {
      cell(html, Findings.ms(spread));
    } else {
      rangeCell(html, Findings.ms(spread.median()), spread.rangeMs());
    }
  }

  private static void rateCell(StringBuilder html, Spread spread) {
    if (spread == null || !spread.shownRate()) {
      cell(html, Findings.rate(spread));
    } else {
      rangeCell(html, String.format(Locale.ROOT, "%.0f", spread.median()), spread.rangeRate());
    }
  }

  private static void rangeCell(StringBuilder html, String median, String range) {
    html.append("<td>")
        .append(Charts.escape(median))
        .append("<br><span class=\"range\">")
        .append(Charts.escape(range))
        .append("</span></td>");
  }

  private static void cell(StringBuilder html, String text) {
    html.append("<td>").append(Charts.escape(text)).append("</td>");
  }
}
