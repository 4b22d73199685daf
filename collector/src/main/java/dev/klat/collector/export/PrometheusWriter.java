package dev.klat.collector.export;

import dev.klat.collector.aggregate.Buckets;
import dev.klat.collector.aggregate.Exposition;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * Writes metric families in the Prometheus text format 0.0.4 or in OpenMetrics 1.0. The two differ
 * where it matters here: OpenMetrics names a counter family without its {@code _total} suffix,
 * declares units, carries exemplars ({@code # {trace_id="..."} value timestamp}) and ends with
 * {@code # EOF}.
 */
final class PrometheusWriter {
  static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPENMETRICS_CONTENT_TYPE =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";

  private PrometheusWriter() {}

  /**
   * What was written: the text, at most the budget's bytes in UTF-8, and how many series did not
   * fit.
   */
  record Written(String text, long seriesDropped) {}

  static String write(List<Exposition.Family> families, boolean openMetrics) {
    return write(families, openMetrics, Integer.MAX_VALUE).text();
  }

  /**
   * Writes the families in their order until the next series would take the text over {@code
   * maxBytes} (UTF-8); that series and every later one are dropped and counted, so a scrape never
   * costs more than the budget whatever the labels hold. The family headers of a dropped series are
   * not written; OpenMetrics' {@code # EOF} always is.
   */
  static Written write(List<Exposition.Family> families, boolean openMetrics, int maxBytes) {
    int budget = maxBytes - (openMetrics ? EOF.length() : 0);
    StringBuilder out = new StringBuilder(Math.min(16 * 1024, Math.max(0, maxBytes)));
    StringBuilder series = new StringBuilder(1024);
    int bytes = 0;
    long dropped = 0;
    for (Exposition.Family f : families) {
      if (f.series().isEmpty()) {
        continue;
      }
      if (dropped > 0) {
        dropped += f.series().size();
        continue;
      }
      series.setLength(0);
      header(series, f, openMetrics);
      String header = series.toString();
      boolean headerWritten = false;
      for (Exposition.Series s : f.series()) {
        if (dropped > 0) {
          dropped++;
          continue;
        }
        series.setLength(0);
        if (!headerWritten) {
          series.append(header);
        }
        writeSeries(series, f, s, openMetrics);
        int length = utf8Length(series);
        if (bytes + length > budget) {
          dropped++;
          continue;
        }
        out.append(series);
        bytes += length;
        headerWritten = true;
      }
    }
    if (openMetrics) {
      out.append(EOF);
    }
    return new Written(out.toString(), dropped);
  }

  private static final String EOF = "# EOF\n";

  private static int utf8Length(CharSequence s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      n += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
    }
    return n;
  }

  private static String familyName(Exposition.Family f, boolean openMetrics) {
    return openMetrics && f.type() == Exposition.Type.COUNTER && f.name().endsWith("_total")
        ? f.name().substring(0, f.name().length() - "_total".length())
        : f.name();
  }

  private static void header(StringBuilder out, Exposition.Family f, boolean openMetrics) {
    String familyName = familyName(f, openMetrics);
    out.append("# TYPE ").append(familyName).append(' ').append(typeName(f.type())).append('\n');
    if (openMetrics && !f.unit().isEmpty()) {
      out.append("# UNIT ").append(familyName).append(' ').append(f.unit()).append('\n');
    }
    out.append("# HELP ").append(familyName).append(' ');
    escapeHelp(out, f.help());
    out.append('\n');
  }

  private static void writeSeries(
      StringBuilder out, Exposition.Family f, Exposition.Series s, boolean openMetrics) {
    String familyName = familyName(f, openMetrics);
    if (f.type() == Exposition.Type.HISTOGRAM) {
      histogram(out, familyName, s, openMetrics);
    } else {
      String sample =
          f.type() == Exposition.Type.COUNTER && !familyName.endsWith("_total")
              ? familyName + "_total"
              : familyName;
      out.append(sample);
      labels(out, s.labels(), null);
      out.append(' ').append(number(s.value())).append('\n');
    }
  }

  private static void histogram(
      StringBuilder out, String name, Exposition.Series s, boolean openMetrics) {
    long cumulative = 0;
    long[] counts = s.bucketCounts();
    for (int i = 0; i < counts.length; i++) {
      cumulative += counts[i];
      double upper = Buckets.upperSeconds(i);
      out.append(name).append("_bucket");
      labels(out, s.labels(), upper == Double.POSITIVE_INFINITY ? "+Inf" : plain(upper));
      out.append(' ').append(cumulative);
      Exposition.Exemplar e = s.exemplars() == null ? null : s.exemplars()[i];
      if (openMetrics && e != null) {
        out.append(" # {trace_id=\"")
            .append(e.traceIdHex())
            .append("\"} ")
            .append(number(e.valueSeconds()))
            .append(' ')
            .append(plain(e.epochMillis() / 1000.0));
      }
      out.append('\n');
    }
    out.append(name).append("_count");
    labels(out, s.labels(), null);
    out.append(' ').append(cumulative).append('\n');
    out.append(name).append("_sum");
    labels(out, s.labels(), null);
    out.append(' ').append(number(s.sum())).append('\n');
  }

  private static void labels(StringBuilder out, Map<String, String> labels, String le) {
    if (labels.isEmpty() && le == null) {
      return;
    }
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(e.getKey()).append("=\"");
      escapeLabel(out, e.getValue());
      out.append('"');
    }
    if (le != null) {
      if (!first) {
        out.append(',');
      }
      out.append("le=\"").append(le).append('"');
    }
    out.append('}');
  }

  private static String typeName(Exposition.Type type) {
    return switch (type) {
      case COUNTER -> "counter";
      case GAUGE -> "gauge";
      case HISTOGRAM -> "histogram";
    };
  }

  static String number(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return plain(v);
  }

  private static String plain(double v) {
    return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  private static void escapeLabel(StringBuilder out, String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
  }

  private static void escapeHelp(StringBuilder out, String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
  }
}
