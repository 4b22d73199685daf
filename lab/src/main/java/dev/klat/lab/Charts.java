package dev.klat.lab;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's charts as inline SVG written by hand, the way the benchmark suite draws its plot (no
 * script, no font to load): one bar per setting, labels turned under the bars. Every bar carries
 * its figure in {@code data-value}, so that a test can read a chart back. A setting run more than
 * once is drawn at its median, with a whisker from its lowest to its highest run ({@code data-min},
 * {@code data-max}).
 */
final class Charts {

  static final Map<String, String> COLORS =
      Map.of(
          "produce", "#1f77b4",
          "publish", "#ff7f0e",
          "commit", "#2ca02c",
          "publish+commit", "#bcbd22",
          "catch-up", "#d62728",
          "fetch", "#9467bd");
  private static final int LEFT = 64;
  private static final int TOP = 40;
  private static final int PLOT_HEIGHT = 200;
  private static final int BAR = 34;
  private static final int GAP = 22;
  private static final int LABEL_SPACE = 90;

  private Charts() {}

  /**
   * Bars of one figure per setting at the median of its runs; a null value draws no bar and says
   * "n/a".
   *
   * @param kind the chart's {@code data-chart} attribute
   */
  static String bars(
      String kind, String title, String unit, List<String> labels, List<Spread> values) {
    double max = 0;
    for (Spread value : values) {
      max = value == null ? max : Math.max(max, value.max());
    }
    StringBuilder svg = new StringBuilder();
    double top = niceCeiling(max);
    int width = open(svg, kind, title, unit, labels.size(), top);
    for (int i = 0; i < labels.size(); i++) {
      int x = LEFT + GAP + i * (BAR + GAP);
      Spread spread = values.get(i);
      if (spread == null) {
        svg.append(text(x + BAR / 2, TOP + PLOT_HEIGHT - 4, "n/a", "middle"));
      } else {
        double value = spread.median();
        double height = value / top * PLOT_HEIGHT;
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#4e79a7\""
                    + " data-value=\"%.3f\"><title>%s: %s</title></rect>%n",
                x,
                TOP + PLOT_HEIGHT - height,
                BAR,
                height,
                value,
                escape(labels.get(i)),
                escape(describe(spread) + " " + unit)));
        whisker(svg, x + BAR / 2, spread, top);
      }
      label(svg, x, labels.get(i));
    }
    return close(svg);
  }

  /**
   * Stacked bars of the p99 tail's segment means per setting (the medians of its runs), with
   * end-to-end p99 as a tick and its runs' range as a whisker; a setting without breakdowns says
   * "no data". Each segment's range is in its tooltip: stacked whiskers would cross each other.
   */
  static String stacked(
      String title, List<String> labels, List<Map<String, Spread>> segmentsMs, List<Spread> p99Ms) {
    double max = 0;
    for (int i = 0; i < labels.size(); i++) {
      double sum =
          segmentsMs.get(i).values().stream().mapToDouble(v -> Math.max(0, v.median())).sum();
      max = Math.max(max, Math.max(sum, p99Ms.get(i) == null ? 0 : p99Ms.get(i).max()));
    }
    StringBuilder svg = new StringBuilder();
    double top = niceCeiling(max);
    int width = open(svg, "tail", title, "ms", labels.size(), top);
    for (int i = 0; i < labels.size(); i++) {
      int x = LEFT + GAP + i * (BAR + GAP);
      double base = TOP + PLOT_HEIGHT;
      if (segmentsMs.get(i).isEmpty()) {
        svg.append(text(x + BAR / 2, TOP + PLOT_HEIGHT - 4, "no data", "middle"));
      }
      for (Map.Entry<String, Spread> segment : segmentsMs.get(i).entrySet()) {
        double height = Math.max(0, segment.getValue().median()) / top * PLOT_HEIGHT;
        base -= height;
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\""
                    + " data-segment=\"%s\" data-value=\"%.3f\"><title>%s, %s: %s ms</title></rect>%n",
                x,
                base,
                BAR,
                height,
                COLORS.getOrDefault(segment.getKey(), "#999"),
                escape(segment.getKey()),
                segment.getValue().median(),
                escape(labels.get(i)),
                escape(segment.getKey()),
                escape(describe(segment.getValue()))));
      }
      Spread p99Runs = p99Ms.get(i);
      if (p99Runs != null) {
        double p99 = p99Runs.median();
        double y = TOP + PLOT_HEIGHT - p99 / top * PLOT_HEIGHT;
        svg.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\""
                    + " stroke-width=\"2\" data-p99=\"%.3f\"><title>end-to-end p99: %s ms</title></line>%n",
                x - 4,
                y,
                x + BAR + 4,
                y,
                p99,
                escape(describe(p99Runs))));
        whisker(svg, x + BAR + 8, p99Runs, top);
      }
      label(svg, x, labels.get(i));
    }
    legend(svg, width, segmentsMs);
    return close(svg);
  }

  /** A vertical line from the lowest to the highest run, with caps; nothing for a single run. */
  private static void whisker(StringBuilder svg, int x, Spread spread, double top) {
    if (!spread.varies()) {
      return;
    }
    double low = TOP + PLOT_HEIGHT - spread.min() / top * PLOT_HEIGHT;
    double high = TOP + PLOT_HEIGHT - spread.max() / top * PLOT_HEIGHT;
    svg.append(
        String.format(
            Locale.ROOT,
            "<path d=\"M%d %.1fV%.1fM%d %.1fH%dM%d %.1fH%d\" stroke=\"#222\" stroke-width=\"1.5\""
                + " fill=\"none\" data-min=\"%.3f\" data-max=\"%.3f\"><title>%d runs: %s to"
                + " %s</title></path>%n",
            x,
            low,
            high,
            x - 5,
            low,
            x + 5,
            x - 5,
            high,
            x + 5,
            spread.min(),
            spread.max(),
            spread.count(),
            format(spread.min()),
            format(spread.max())));
  }

  /** The median, and the runs' range when they differ. */
  private static String describe(Spread spread) {
    return spread.varies()
        ? format(spread.median())
            + " (median of "
            + spread.count()
            + " runs, "
            + format(spread.min())
            + " to "
            + format(spread.max())
            + ")"
        : format(spread.median());
  }

  private static int open(
      StringBuilder svg, String kind, String title, String unit, int bars, double top) {
    // Wide enough for the bars and for the title (13 px bold: about 7.5 px a character).
    int titleWidth = (int) (20 + (title.length() + unit.length() + 3) * 7.5);
    int width = Math.max(Math.max(440, titleWidth), LEFT + GAP + bars * (BAR + GAP) + 20);
    int height = TOP + PLOT_HEIGHT + LABEL_SPACE + 40;
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"11\" data-chart=\"%s\">%n",
            width,
            height,
            kind));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%s (%s)</text>%n",
            escape(title),
            escape(unit)));
    for (int step = 0; step <= 4; step++) {
      double value = top * step / 4;
      double y = TOP + PLOT_HEIGHT - PLOT_HEIGHT * step / 4.0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>%n",
              LEFT,
              y,
              width - 10,
              y,
              step == 0 ? "#555" : "#ddd"));
      svg.append(text(LEFT - 4, y + 4, format(value), "end"));
    }
    return width;
  }

  private static void label(StringBuilder svg, int x, String label) {
    int lx = x + BAR / 2;
    int ly = TOP + PLOT_HEIGHT + 12;
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-35 %d %d)\">%s</text>%n",
            lx,
            ly,
            lx,
            ly,
            escape(label)));
  }

  private static void legend(StringBuilder svg, int width, List<Map<String, Spread>> segmentsMs) {
    int x = LEFT;
    int y = TOP + PLOT_HEIGHT + LABEL_SPACE + 14;
    for (String segment : Findings.SEGMENTS) {
      if (segmentsMs.stream().noneMatch(bar -> bar.containsKey(segment))) {
        continue;
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>%n",
              x,
              y - 9,
              COLORS.get(segment)));
      svg.append(text(x + 13, y, segment, "start"));
      x += 20 + segment.length() * 7;
      if (x > width - 100) {
        x = LEFT;
        y += 16;
      }
    }
  }

  private static String close(StringBuilder svg) {
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static String text(double x, double y, String text, String anchor) {
    return String.format(
        Locale.ROOT,
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>%n",
        x,
        y,
        anchor,
        escape(text));
  }

  /** 1, 2 or 5 times a power of ten, at least {@code max} (1 for an empty chart). */
  static double niceCeiling(double max) {
    if (!(max > 0)) {
      return 1;
    }
    double power = Math.pow(10, Math.floor(Math.log10(max)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * power >= max) {
        return step * power;
      }
    }
    return 10 * power;
  }

  static String format(double value) {
    if (value >= 1000) {
      return String.format(Locale.ROOT, "%.0f", value);
    }
    return value >= 10
        ? String.format(Locale.ROOT, "%.0f", value)
        : String.format(Locale.ROOT, "%.1f", value);
  }

  static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
