package dev.klat.collector.clienttelemetry;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.util.List;

/** The client instances as {@code /api/clients} and {@code /api/breakdown} write them. */
final class ClientTelemetryJson {
  /** What every figure is, said once in {@code /api/clients}. */
  static final String FIGURES_NOTE =
      "each client's own avg and max over its metric window (KIP-714), in ms unless named"
          + " otherwise; not per-record latencies";

  private ClientTelemetryJson() {}

  static void array(StringBuilder out, List<ClientInstance> instances, long nowNanos) {
    out.append('[');
    for (int k = 0; k < instances.size(); k++) {
      if (k > 0) {
        out.append(',');
      }
      instance(out, instances.get(k), nowNanos);
    }
    out.append(']');
  }

  private static void instance(StringBuilder out, ClientInstance i, long nowNanos) {
    out.append("{\"clientInstanceId\":").append(str(i.clientInstanceId()));
    out.append(",\"clientId\":").append(str(i.clientId()));
    out.append(",\"softwareName\":").append(str(i.softwareName()));
    out.append(",\"softwareVersion\":").append(str(i.softwareVersion()));
    out.append(",\"principal\":").append(str(i.principal()));
    out.append(",\"role\":").append(str(i.role()));
    out.append(",\"groupId\":").append(str(i.groupId()));
    out.append(",\"topics\":[");
    for (int t = 0; t < i.topics().size(); t++) {
      if (t > 0) {
        out.append(',');
      }
      out.append(str(i.topics().get(t)));
    }
    out.append("],\"brokerId\":").append(i.brokerId() < 0 ? "null" : i.brokerId());
    out.append(",\"lastPushAgeSeconds\":")
        .append(Math.max(0, nowNanos - i.lastPushNanos()) / 1_000_000 / 1e3);
    out.append(",\"terminating\":").append(i.terminating());
    out.append(",\"metrics\":{");
    boolean first = true;
    for (ClientFigure f : ClientFigure.values()) {
      ClientInstance.Aggregate a = i.figure(f);
      if (a == null || (!a.hasAvg() && !a.hasMax())) {
        continue;
      }
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append('"').append(f.json()).append("\":{");
      if (a.hasAvg()) {
        out.append("\"avg\":").append(a.avg());
      }
      if (a.hasMax()) {
        out.append(a.hasAvg() ? "," : "").append("\"max\":").append(a.max());
      }
      out.append('}');
    }
    out.append("}}");
  }

  private static String str(String s) {
    return s == null
        ? "null"
        : "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
  }
}
