package dev.klat.collector.broker;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.klat.collector.correlate.instants.BrokerTimings.Partitions;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import java.util.List;
import java.util.Locale;

/**
 * Writes {@code /api/brokers}: every broker's sources, health, partition counts and latest request
 * timings.
 */
final class BrokersJson {
  private BrokersJson() {}

  /**
   * What {@code /api/brokers} says of discovery.
   *
   * @param bootstrap the bootstrap servers asked
   * @param lastSuccessEpochNanos the last discovery that succeeded, or -1
   * @param lastError why the last discovery failed, or null
   * @param errors failed discoveries since start
   */
  record DiscoveryStatus(
      String bootstrap, long lastSuccessEpochNanos, String lastError, long errors) {}

  /**
   * The JSON of {@code /api/brokers}.
   *
   * @param statuses every broker's state
   * @param discovery the discovery's state, or null when discovery is off
   */
  static String json(List<BrokerStatus> statuses, DiscoveryStatus discovery) {
    StringBuilder out = new StringBuilder(1024).append("{\"brokers\":[");
    boolean first = true;
    for (BrokerStatus s : statuses) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append("{\"nodeId\":").append(s.nodeId());
      out.append(",\"discovered\":").append(s.discovered());
      out.append(",\"sources\":[");
      for (int i = 0; i < s.sources().size(); i++) {
        out.append(i == 0 ? "" : ",").append(str(s.sources().get(i)));
      }
      out.append("],\"source\":").append(str(s.source()));
      out.append(",\"up\":").append(s.up());
      out.append(",\"lastSuccessEpochMs\":")
          .append(s.lastSuccessEpochNanos() < 0 ? "null" : s.lastSuccessEpochNanos() / 1_000_000);
      out.append(",\"ageSeconds\":").append(seconds(s.ageNanos()));
      out.append(",\"lastError\":").append(str(s.lastError()));
      out.append(",\"scrapeErrors\":").append(s.scrapeErrors());
      out.append(",\"restarts\":").append(s.restarts());
      Partitions p = s.partitions();
      out.append(",\"partitions\":");
      if (p == null || !p.any()) {
        out.append("null");
      } else {
        out.append("{\"leaders\":").append(count(p.leaders()));
        out.append(",\"hosted\":").append(count(p.partitions()));
        out.append(",\"underMinIsr\":").append(count(p.underMinIsr())).append('}');
      }
      out.append(",\"latest\":{");
      boolean firstRequest = true;
      for (Request request : Phase.REQUESTS) {
        if (!firstRequest) {
          out.append(',');
        }
        firstRequest = false;
        out.append(str(Phase.requestLabel(request))).append(':');
        RequestTimings t = s.latest().get(request);
        if (t == null) {
          out.append("null");
          continue;
        }
        long lengthNanos = t.intervalEndEpochNanos() - t.intervalStartEpochNanos();
        out.append("{\"requests\":").append(t.requests());
        out.append(",\"intervalStartEpochMs\":").append(t.intervalStartEpochNanos() / 1_000_000);
        out.append(",\"intervalEndEpochMs\":").append(t.intervalEndEpochNanos() / 1_000_000);
        out.append(",\"requestsPerSecond\":")
            .append(lengthNanos <= 0 ? "null" : number(t.requests() * 1e9 / lengthNanos));
        out.append(",\"meanMs\":{");
        long[] means = {
          t.requestQueueNanos(),
          t.localNanos(),
          t.remoteNanos(),
          t.throttleNanos(),
          t.responseQueueNanos(),
          t.responseSendNanos(),
          t.totalNanos()
        };
        for (Phase phase : Phase.ALL) {
          out.append(phase.ordinal() == 0 ? "" : ",").append(str(phase.key)).append(':');
          out.append(number(means[phase.ordinal()] / 1e6));
        }
        out.append("}}");
      }
      out.append("}}");
    }
    out.append("],\"discovery\":");
    if (discovery == null) {
      out.append("null");
    } else {
      long last = discovery.lastSuccessEpochNanos();
      out.append("{\"bootstrap\":").append(str(discovery.bootstrap()));
      out.append(",\"lastSuccessEpochMs\":").append(last < 0 ? "null" : last / 1_000_000);
      out.append(",\"lastError\":").append(str(discovery.lastError()));
      out.append(",\"errors\":").append(discovery.errors()).append('}');
    }
    return out.append('}').toString();
  }

  private static String count(long count) {
    return count < 0 ? "null" : Long.toString(count);
  }

  private static String seconds(long nanos) {
    return number(nanos / 1e9);
  }

  private static String number(double value) {
    return String.format(Locale.ROOT, "%.6f", value).replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  private static String str(String s) {
    if (s == null) {
      return "null";
    }
    return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
  }
}
