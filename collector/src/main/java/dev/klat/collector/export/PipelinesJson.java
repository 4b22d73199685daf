package dev.klat.collector.export;

import static dev.klat.collector.export.SummaryJson.str;

import dev.klat.collector.pipeline.PipelinesReport;
import dev.klat.model.Segment;
import java.util.Map;

/**
 * The JSON of {@code /api/pipelines} (the collector contract of section 9 of the latency model),
 * written by hand like {@code /api/breakdown}'s, whose {@code e2e} and {@code segments} writers it
 * shares.
 */
final class PipelinesJson {
  private PipelinesJson() {}

  static String write(PipelinesReport report) {
    StringBuilder out = new StringBuilder(1024);
    out.append("{\"windowSeconds\":").append(SummaryJson.seconds(report.windowNanos()));
    out.append(",\"pipelines\":[");
    boolean first = true;
    for (PipelinesReport.Pipeline p : report.pipelines()) {
      out.append(first ? "" : ",");
      first = false;
      pipeline(out, p);
    }
    out.append("],\"graph\":{\"nodes\":[");
    first = true;
    for (PipelinesReport.Node n : report.graph().nodes()) {
      out.append(first ? "" : ",");
      first = false;
      out.append("{\"id\":").append(str(n.id()));
      out.append(",\"kind\":").append(str(n.kind()));
      out.append(",\"name\":").append(str(n.name())).append('}');
    }
    out.append("],\"edges\":[");
    first = true;
    for (PipelinesReport.Edge e : report.graph().edges()) {
      out.append(first ? "" : ",");
      first = false;
      out.append("{\"from\":").append(str(e.from()));
      out.append(",\"to\":").append(str(e.to()));
      out.append(",\"kind\":").append(str(e.kind())).append('}');
    }
    PipelinesReport.Counts c = report.counts();
    out.append("]},\"chains\":{\"complete\":").append(c.chains());
    out.append(",\"incomplete\":").append(c.incomplete());
    out.append(",\"cut\":").append(c.cut());
    out.append(",\"unknownGroups\":").append(c.unknownGroups());
    out.append(",\"pipelinesNotShown\":").append(c.notShown());
    return out.append("}}").toString();
  }

  private static void pipeline(StringBuilder out, PipelinesReport.Pipeline p) {
    out.append("{\"name\":").append(str(p.name()));
    out.append(",\"firstTopic\":").append(str(p.firstTopic()));
    out.append(",\"lastGroup\":").append(str(p.lastGroup()));
    out.append(",\"hopCount\":").append(p.hopCount());
    out.append(",\"fragment\":").append(p.fragment());
    out.append(",\"count\":").append(p.count()).append(',');
    e2e(out, "e2e", p.e2e());
    out.append(",\"identityViolations\":").append(p.identityViolations());
    out.append(",\"hops\":[");
    boolean first = true;
    for (PipelinesReport.Hop h : p.hops()) {
      out.append(first ? "" : ",");
      first = false;
      out.append("{\"index\":").append(h.index());
      out.append(",\"inputTopic\":").append(str(h.inputTopic()));
      out.append(",\"group\":").append(str(h.group()));
      out.append(",\"outputTopic\":").append(str(h.outputTopic()));
      out.append(",\"internal\":").append(h.internal());
      out.append(",\"count\":").append(h.count()).append(',');
      e2e(out, "e2e", h.e2e());
      out.append(",\"segments\":{");
      boolean firstSegment = true;
      for (Map.Entry<String, PipelinesReport.SegmentFigures> e : h.segments().entrySet()) {
        out.append(firstSegment ? "" : ",");
        firstSegment = false;
        PipelinesReport.SegmentFigures s = e.getValue();
        SummaryJson.segment(out, e.getKey(), s.count(), s.p50Nanos(), s.p99Nanos(), s.quality());
        if (h.commitParts() != null && e.getKey().equals(Segment.COMMIT.id())) {
          // Inside commit's object, as /api/breakdown puts its parts.
          out.setLength(out.length() - 1);
          out.append(",\"parts\":{");
          e2e(out, "replication", h.commitParts().replication());
          out.append(',');
          e2e(out, "transaction", h.commitParts().transaction());
          out.append("}}");
        }
      }
      out.append('}');
      if (h.processing() != null) {
        out.append(',');
        e2e(out, "processing", h.processing());
      }
      // The shape of /api/breakdown's p99Tail, counted in chains.
      out.append(",\"p99Tail\":{\"chains\":").append(h.p99Tail().chains()).append(',');
      SummaryJson.meanSeconds(out, h.p99Tail().meanNanos());
      out.append("}}");
    }
    out.append("],\"tail\":");
    PipelinesReport.Tail t = p.tail();
    if (t == null) {
      out.append("null");
    } else {
      out.append("{\"hop\":").append(t.hop());
      out.append(",\"segment\":").append(str(t.segment()));
      out.append(",\"part\":").append(str(t.part()));
      out.append(",\"share\":")
          .append(PrometheusWriter.number(Math.round(t.share() * 10_000) / 10_000.0));
      out.append(",\"records\":").append(t.records()).append('}');
    }
    out.append('}');
  }

  // {"p50Seconds":..,"p99Seconds":..,"p999Seconds":..} under its name, null for -1.
  private static void e2e(StringBuilder out, String name, PipelinesReport.Quantiles q) {
    out.append(str(name))
        .append(":{\"p50Seconds\":")
        .append(SummaryJson.secondsOrNull(q.p50Nanos()));
    out.append(",\"p99Seconds\":").append(SummaryJson.secondsOrNull(q.p99Nanos()));
    out.append(",\"p999Seconds\":").append(SummaryJson.secondsOrNull(q.p999Nanos())).append('}');
  }
}
