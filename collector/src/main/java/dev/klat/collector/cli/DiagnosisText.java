package dev.klat.collector.cli;

import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.diagnose.Finding;
import dev.klat.collector.diagnose.PipelineDiagnosis;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A diagnosis as {@code ./klat diagnose} prints it in a terminal. */
final class DiagnosisText {
  private static final int WIDTH = 100;

  private DiagnosisText() {}

  static String render(String topic, String group, String window, DiagnosisReport report) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "topic %s, group %s, last %s: %d sampled breakdowns, p99 %s; the tail (%d records:"
                + " %d tail-captured, %d sampled%s) averages %.1f ms%n",
            topic == null ? "all" : topic,
            group == null ? "all" : group,
            window,
            report.records(),
            report.p99Seconds() == null
                ? "-"
                : String.format(Locale.ROOT, "%.1f ms", report.p99Seconds() * 1000),
            report.tailRecords(),
            report.tailCaptured(),
            report.tailRecords() - report.tailCaptured() - report.tailOpentelemetry(),
            report.tailOpentelemetry() == 0
                ? ""
                : ", " + report.tailOpentelemetry() + " from OpenTelemetry instrumentations",
            report.tailMeanSeconds() * 1000));
    findings(out, report);
    return out.toString();
  }

  /** A pipeline's diagnosis: where its slowest chains' time went, then what explains it. */
  static String renderPipeline(String window, PipelineDiagnosis d) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "pipeline %s, last %s: %d chains, p99 %s%n",
            d.pipeline(),
            window,
            d.chains(),
            d.p99Seconds() == null
                ? "-"
                : String.format(Locale.ROOT, "%.1f ms", d.p99Seconds() * 1000)));
    if (d.hop() == null) {
      findings(out, d.report());
      return out.toString();
    }
    PipelineDiagnosis.Hop h = d.hop();
    out.append(
        String.format(
            Locale.ROOT,
            "the slowest chains (%d) spend %d%% of their time in hop %d (%s, group %s%s): %s%n",
            d.tailChains(),
            Math.round(d.tailShare() * 100),
            h.index(),
            h.inputTopic(),
            h.group(),
            h.outputTopic() == null ? "" : ", writes " + h.outputTopic(),
            d.application() != null
                ? "processing in application " + d.application()
                : d.segment()));
    if (d.application() == null) {
      DiagnosisReport r = d.report();
      out.append(
          String.format(
              Locale.ROOT,
              "hop %d's own tail: %d sampled breakdowns of topic %s, group %s, p99 %s%n",
              h.index(),
              r.records(),
              h.inputTopic(),
              h.group(),
              r.p99Seconds() == null
                  ? "-"
                  : String.format(Locale.ROOT, "%.1f ms", r.p99Seconds() * 1000)));
    }
    findings(out, d.report());
    return out.toString();
  }

  private static void findings(StringBuilder out, DiagnosisReport report) {
    if (report.findings().isEmpty()) {
      out.append('\n');
      wrap(out, "", report.unexplained() == null ? "No finding." : report.unexplained());
      return;
    }
    int rank = 1;
    for (Finding f : report.findings()) {
      out.append(
          String.format(
              Locale.ROOT,
              "%n%d. %s %s: %d%% of the tail (%.1f ms)%s%n",
              rank++,
              f.segment(),
              f.knob(),
              Math.round(f.tailShare() * 100),
              f.explainedSeconds() * 1000,
              f.records() <= 0 ? "" : ", from " + f.records() + " records"));
      for (Map.Entry<String, Object> e : f.evidence().entrySet()) {
        out.append("     ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
      }
      wrap(out, "   ", f.suggestion());
    }
  }

  private static void wrap(StringBuilder out, String indent, String text) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder(indent);
    for (String word : text.split(" ")) {
      if (line.length() + word.length() + 1 > WIDTH && line.length() > indent.length()) {
        lines.add(line.toString());
        line = new StringBuilder(indent);
      }
      line.append(line.length() > indent.length() ? " " : "").append(word);
    }
    lines.add(line.toString());
    for (String l : lines) {
      out.append(l).append('\n');
    }
  }
}
