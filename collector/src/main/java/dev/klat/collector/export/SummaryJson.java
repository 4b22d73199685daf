package dev.klat.collector.export;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.ShareSummary;
import dev.klat.collector.correlate.join.ShareDelivery;
import dev.klat.collector.correlate.join.ShareRecord;
import dev.klat.model.Segment;
import java.util.Map;

/**
 * The JSON of breakdown summaries, written by hand (it is read every refresh of the page). {@code
 * /api/breakdown} and the points of {@code /api/history} share the writers of {@code e2e} and
 * {@code meanSeconds}, so that the page draws both alike.
 */
final class SummaryJson {
  private SummaryJson() {}

  /** The JSON of {@code /api/breakdown}: a summary and the query it answers. */
  static String breakdown(
      String topic, String group, long windowNanos, RecentBreakdowns.Summary s) {
    return breakdown(
        topic, group, windowNanos, s, null, RecentBreakdowns.OpenTelemetryRecords.EMPTY);
  }

  private static void part(StringBuilder out, RecentBreakdowns.PartQuantiles q) {
    out.append("{\"p50Seconds\":").append(secondsOrNull(q.p50Nanos()));
    out.append(",\"p99Seconds\":").append(secondsOrNull(q.p99Nanos()));
    out.append(",\"p999Seconds\":").append(secondsOrNull(q.p999Nanos()));
    out.append('}');
  }

  /** The JSON of {@code /api/breakdown} without records seen through an instrumentation. */
  static String breakdown(
      String topic,
      String group,
      long windowNanos,
      RecentBreakdowns.Summary s,
      RecentBreakdowns.CommitParts parts) {
    return breakdown(
        topic, group, windowNanos, s, parts, RecentBreakdowns.OpenTelemetryRecords.EMPTY);
  }

  /**
   * The JSON of {@code /api/breakdown}, with commit's {@code "parts"} (replication and transaction,
   * section 9 of the latency model) when {@code parts} is not null: only when a record of the
   * window waited for its transaction; and the records seen through an OpenTelemetry
   * instrumentation in {@code "opentelemetry"}, apart from every sampled figure.
   */
  static String breakdown(
      String topic,
      String group,
      long windowNanos,
      RecentBreakdowns.Summary s,
      RecentBreakdowns.CommitParts parts,
      RecentBreakdowns.OpenTelemetryRecords otel) {
    return breakdown(topic, group, windowNanos, s, parts, otel, null);
  }

  /**
   * The JSON of {@code /api/breakdown}, as above, with the {@code "share"} object (section 11 of
   * the latency model) when the window has records of share groups.
   */
  static String breakdown(
      String topic,
      String group,
      long windowNanos,
      RecentBreakdowns.Summary s,
      RecentBreakdowns.CommitParts parts,
      RecentBreakdowns.OpenTelemetryRecords otel,
      ShareSummary share) {
    StringBuilder out = new StringBuilder(512);
    out.append("{\"topic\":").append(str(topic));
    out.append(",\"group\":").append(str(group));
    out.append(",\"windowSeconds\":").append(seconds(windowNanos));
    // count, e2e, p99Tail and segments are of the sampled records alone; tail records in "tail".
    out.append(",\"capture\":\"sampled\"");
    out.append(",\"count\":").append(s.count());
    out.append(',');
    e2e(out, s.p50Nanos(), s.p99Nanos(), s.p999Nanos());
    out.append(",\"p99Tail\":{\"count\":").append(s.tailCount());
    out.append(',');
    meanSeconds(out, s.tailMeanNanos());
    out.append(",\"clockFlagged\":{");
    boolean first = true;
    for (Map.Entry<String, Integer> e : s.tailFlagged().entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(str(e.getKey())).append(':').append(e.getValue());
    }
    out.append("}},\"segments\":{");
    first = true;
    for (Map.Entry<String, RecentBreakdowns.SegmentQuantiles> e : s.segments().entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      RecentBreakdowns.SegmentQuantiles q = e.getValue();
      out.append(str(e.getKey())).append(":{\"count\":").append(q.count());
      out.append(",\"p50Seconds\":").append(secondsOrNull(q.p50Nanos()));
      out.append(",\"p99Seconds\":").append(secondsOrNull(q.p99Nanos()));
      out.append(",\"quality\":{");
      boolean firstQuality = true;
      for (Map.Entry<String, Integer> count :
          s.segmentQualities().getOrDefault(e.getKey(), Map.of()).entrySet()) {
        out.append(firstQuality ? "" : ",").append(str(count.getKey())).append(':');
        out.append(count.getValue());
        firstQuality = false;
      }
      out.append('}');
      if (parts != null && e.getKey().equals(Segment.COMMIT.id())) {
        out.append(",\"parts\":{\"replication\":");
        part(out, parts.replication());
        out.append(",\"transaction\":");
        part(out, parts.transaction());
        out.append('}');
      }
      out.append('}');
    }
    out.append("},");
    tail(out, s.tail());
    out.append(',');
    opentelemetry(out, otel);
    if (share != null) {
      out.append(',');
      share(out, share);
    }
    out.append('}');
    return out.toString();
  }

  /**
   * {@code "share":{"records":..,"redeliveredRecords":..,"deliveriesPerRecord":{"p50","p99",
   * "max"},"ends":{cause:count},"redelivery":{"known","unknown","p50Seconds",..},"p99Tail":{
   * "records","redelivered","redeliveryShare","ends"},"slowestRedelivered":[..]}}: the window's
   * records of share groups (section 11 of the latency model). A redelivery part that is not known
   * is {@code null}, never a guess.
   */
  static void share(StringBuilder out, ShareSummary s) {
    out.append("\"share\":{\"records\":").append(s.records());
    out.append(",\"redeliveredRecords\":").append(s.redeliveredRecords());
    out.append(",\"deliveriesPerRecord\":{\"p50\":").append(s.deliveriesP50());
    out.append(",\"p99\":").append(s.deliveriesP99());
    out.append(",\"max\":").append(s.deliveriesMax()).append('}');
    out.append(",\"ends\":");
    counts(out, s.ends());
    out.append(",\"redelivery\":{\"known\":").append(s.redeliveryKnown());
    out.append(",\"unknown\":").append(s.redeliveryUnknown());
    if (s.redelivery() != null) {
      out.append(",\"p50Seconds\":").append(secondsOrNull(s.redelivery().p50Nanos()));
      out.append(",\"p99Seconds\":").append(secondsOrNull(s.redelivery().p99Nanos()));
      out.append(",\"p999Seconds\":").append(secondsOrNull(s.redelivery().p999Nanos()));
    }
    out.append("},\"p99Tail\":{\"records\":").append(s.tailRecords());
    out.append(",\"redelivered\":").append(s.tailRedelivered());
    out.append(",\"redeliveryShare\":");
    out.append(s.tailRedeliveryShare() < 0 ? "null" : Double.toString(s.tailRedeliveryShare()));
    out.append(",\"ends\":");
    counts(out, s.tailEnds());
    out.append("},\"slowestRedelivered\":[");
    for (int i = 0; i < s.slowestRedelivered().size(); i++) {
      ShareSummary.Redelivered r = s.slowestRedelivered().get(i);
      ShareRecord share = r.share();
      out.append(i == 0 ? "{" : ",{");
      out.append("\"topic\":").append(str(r.topic()));
      out.append(",\"group\":").append(str(r.group()));
      out.append(",\"partition\":").append(r.partition());
      out.append(",\"offset\":").append(r.offset());
      out.append(",\"e2eSeconds\":").append(secondsOrNull(r.e2eNanos()));
      out.append(",\"traceId\":").append(str(r.traceIdHex()));
      out.append(",\"deliveryCount\":").append(share.deliveryCount());
      out.append(",\"accepted\":").append(share.accepted());
      out.append(",\"redeliverySeconds\":").append(secondsOrNull(share.redeliveryNanos()));
      out.append(",\"deliveries\":");
      deliveries(out, share);
      out.append('}');
    }
    out.append("]}");
  }

  /**
   * A record's deliveries that were seen: {@code [{"count","consumerInstance","clientId",
   * "fetchRequestUnixNano","acquiredUnixNano","pollUnixNano","ackType","ackUnixNano","ackError",
   * "end","counted"}]}, each instant as its consumer's clock read it.
   */
  static void deliveries(StringBuilder out, ShareRecord share) {
    out.append('[');
    for (int i = 0; i < share.deliveries().size(); i++) {
      ShareRecord.Delivery d = share.deliveries().get(i);
      out.append(i == 0 ? "{" : ",{");
      out.append("\"count\":").append(d.count());
      out.append(",\"consumerInstance\":").append(str(Long.toHexString(d.instanceId())));
      out.append(",\"clientId\":").append(str(d.clientId()));
      out.append(",\"fetchRequestUnixNano\":").append(d.fetchRequestNanos());
      out.append(",\"acquiredUnixNano\":").append(d.acquiredNanos());
      out.append(",\"pollUnixNano\":").append(d.pollNanos());
      out.append(",\"ackType\":").append(str(d.acknowledgeType()));
      out.append(",\"ackUnixNano\":");
      out.append(
          d.acknowledgeNanos() == ShareDelivery.NOT_ACKNOWLEDGED
              ? "null"
              : Long.toString(d.acknowledgeNanos()));
      out.append(",\"ackError\":").append(str(d.acknowledgeError()));
      out.append(",\"end\":").append(str(d.end().id()));
      out.append(",\"counted\":").append(d.counted());
      out.append('}');
    }
    out.append(']');
  }

  /**
   * {@code "opentelemetry":{"capture":"opentelemetry","count":..,"instrumented":{..},
   * "quality":{..},"e2e":{..},"segments":{..},"pairs":[..],"pairsNotShown":..}}: the records seen
   * through an OpenTelemetry instrumentation (section 10 of the latency model), all of the query's
   * together and per topic and group pair.
   */
  static void opentelemetry(StringBuilder out, RecentBreakdowns.OpenTelemetryRecords otel) {
    out.append("\"opentelemetry\":{\"capture\":\"opentelemetry\",");
    opentelemetrySplit(out, otel.all());
    out.append(",\"pairs\":[");
    for (int i = 0; i < otel.pairs().size(); i++) {
      RecentBreakdowns.OpenTelemetryPair pair = otel.pairs().get(i);
      out.append(i == 0 ? "{" : ",{");
      out.append("\"topic\":").append(str(pair.topic()));
      out.append(",\"group\":").append(str(pair.group())).append(',');
      opentelemetrySplit(out, pair.split());
      out.append('}');
    }
    out.append("],\"pairsNotShown\":").append(otel.pairsNotShown()).append('}');
  }

  private static void opentelemetrySplit(
      StringBuilder out, RecentBreakdowns.OpenTelemetrySplit split) {
    out.append("\"count\":").append(split.count());
    out.append(",\"instrumented\":{\"producer\":").append(split.producerInstrumented());
    out.append(",\"consumer\":").append(split.consumerInstrumented()).append('}');
    out.append(",\"klatAgent\":{\"producer\":").append(split.producerAgent());
    out.append(",\"consumer\":").append(split.consumerAgent()).append('}');
    out.append(",\"quality\":");
    counts(out, split.qualities());
    out.append(",\"e2e\":");
    tailSegment(out, split.e2e(), false);
    out.append(",\"segments\":{");
    boolean first = true;
    for (Map.Entry<String, RecentBreakdowns.TailSegment> e : split.segments().entrySet()) {
      out.append(first ? "" : ",").append(str(e.getKey())).append(':');
      first = false;
      tailSegment(out, e.getValue(), true);
      // Inside the segment's object: its qualities.
      out.setLength(out.length() - 1);
      out.append(",\"quality\":");
      counts(out, split.segmentQualities().getOrDefault(e.getKey(), Map.of()));
      out.append('}');
    }
    out.append('}');
  }

  private static void counts(StringBuilder out, Map<String, Integer> counts) {
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, Integer> c : counts.entrySet()) {
      out.append(first ? "" : ",").append(str(c.getKey())).append(':').append(c.getValue());
      first = false;
    }
    out.append('}');
  }

  /**
   * One entry of {@code segments}: {@code id:{"count":..,"p50Seconds":..,"p99Seconds":..,
   * "quality":{quality:count,...}}}, as {@code /api/breakdown} and {@code /api/pipelines}' hops
   * write it.
   */
  static void segment(
      StringBuilder out,
      String id,
      int count,
      long p50Nanos,
      long p99Nanos,
      Map<String, Integer> qualities) {
    out.append(str(id)).append(":{\"count\":").append(count);
    out.append(",\"p50Seconds\":").append(secondsOrNull(p50Nanos));
    out.append(",\"p99Seconds\":").append(secondsOrNull(p99Nanos));
    out.append(",\"quality\":{");
    boolean first = true;
    for (Map.Entry<String, Integer> c : qualities.entrySet()) {
      out.append(first ? "" : ",").append(str(c.getKey())).append(':').append(c.getValue());
      first = false;
    }
    out.append("}}");
  }

  /**
   * {@code "tail":{"capture":"tail","count":..,"full":..,"producerOnly":..,"consumerOnly":..,
   * "e2e":{..},"segments":{id:{..}}}}: the tail records, apart from the sampled figures.
   */
  static void tail(StringBuilder out, RecentBreakdowns.TailSplit t) {
    out.append("\"tail\":{\"capture\":\"tail\",\"count\":").append(t.count());
    out.append(",\"full\":").append(t.full());
    out.append(",\"producerOnly\":").append(t.producerOnly());
    out.append(",\"consumerOnly\":").append(t.consumerOnly());
    out.append(",\"e2e\":");
    tailSegment(out, t.e2e(), false);
    out.append(",\"segments\":{");
    boolean first = true;
    for (Map.Entry<String, RecentBreakdowns.TailSegment> e : t.segments().entrySet()) {
      out.append(first ? "" : ",").append(str(e.getKey())).append(':');
      tailSegment(out, e.getValue(), true);
      first = false;
    }
    out.append("}}");
  }

  private static void tailSegment(
      StringBuilder out, RecentBreakdowns.TailSegment q, boolean withShare) {
    out.append("{\"count\":").append(q.count());
    out.append(",\"p50Seconds\":").append(secondsOrNull(q.p50Nanos()));
    out.append(",\"p99Seconds\":").append(secondsOrNull(q.p99Nanos()));
    out.append(",\"meanSeconds\":").append(q.meanNanos() < 0 ? "null" : seconds(q.meanNanos()));
    if (withShare) {
      out.append(",\"shareOfE2e\":")
          .append(q.share() < 0 ? "null" : PrometheusWriter.number(round4(q.share())));
      out.append(",\"shareRecords\":").append(q.shareCount());
    }
    out.append('}');
  }

  private static double round4(double v) {
    return Math.round(v * 10_000) / 10_000.0;
  }

  /** {@code "e2e":{"p50Seconds":..,"p99Seconds":..,"p999Seconds":..}}, null for -1. */
  static void e2e(StringBuilder out, long p50Nanos, long p99Nanos, long p999Nanos) {
    out.append("\"e2e\":{\"p50Seconds\":").append(secondsOrNull(p50Nanos));
    out.append(",\"p99Seconds\":").append(secondsOrNull(p99Nanos));
    out.append(",\"p999Seconds\":").append(secondsOrNull(p999Nanos)).append('}');
  }

  /** {@code "meanSeconds":{segment:seconds or null, ...}}. */
  static void meanSeconds(StringBuilder out, Map<String, Double> meanNanos) {
    out.append("\"meanSeconds\":{");
    boolean first = true;
    for (Map.Entry<String, Double> e : meanNanos.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(str(e.getKey())).append(':');
      out.append(e.getValue() == null ? "null" : seconds(e.getValue()));
    }
    out.append('}');
  }

  static String secondsOrNull(long nanos) {
    return nanos < 0 ? "null" : seconds(nanos);
  }

  static String seconds(double nanos) {
    return PrometheusWriter.number(nanos / 1e9);
  }

  /** A JSON string, or null. */
  static String str(String s) {
    return s == null ? "null" : "\"" + esc(s) + "\"";
  }

  static String esc(String s) {
    return new String(JsonStringEncoder.getInstance().quoteAsString(s));
  }
}
