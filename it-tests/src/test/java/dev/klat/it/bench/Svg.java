package dev.klat.it.bench;

import dev.klat.it.bench.BenchSuite.Load;
import dev.klat.it.bench.BenchSuite.Run;
import dev.klat.it.bench.BenchSuite.Variant;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The suite's plot, an SVG written by hand: four panels (throughput, CPU per record, the same
 * without the CPU spent before {@code main}, bytes allocated per record after {@code main}), each a
 * group of bars per load with one bar per variant, as a percentage of the baseline variant's median
 * in the same load. A bar is the variant's median; its whisker spans the lowest to the highest run.
 */
final class Svg {

  private static final String[] COLORS = {
    "#7f7f7f", "#1f77b4", "#17becf", "#ff7f0e", "#d62728", "#2ca02c", "#9467bd"
  };
  private static final int LEFT = 70;
  private static final int BAR = 14;
  private static final int GAP = 26;
  private static final int PANEL_HEIGHT = 220;
  private static final int PANEL_TOP = 60;
  private static final int LABEL_SPACE = 70;

  private Svg() {}

  static String plot(List<Variant> variants, List<Load> loads, List<Run> runs) {
    int groupWidth = Math.max(1, variants.size()) * BAR + GAP;
    // Wide enough for the legend's three columns of 250 px and their longest label.
    int width = Math.max(LEFT + loads.size() * groupWidth + 20, 780);
    int panelSpan = PANEL_HEIGHT + LABEL_SPACE + 40;
    int height = PANEL_TOP + 4 * panelSpan;
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"11\">%n",
            width,
            height));
    svg.append(
        String.format(
            Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
    // Legend.
    for (int i = 0; i < variants.size(); i++) {
      int x = 10 + (i % 3) * 250;
      int y = 14 + (i / 3) * 16;
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                  + "<text x=\"%d\" y=\"%d\">%s</text>%n",
              x,
              y - 9,
              COLORS[i % COLORS.length],
              x + 14,
              y,
              escape(variants.get(i).label)));
    }
    String base = variants.isEmpty() ? "" : variants.get(0).label;
    List<ToDoubleFunction<Run>> fields =
        List.of(
            Run::recordsPerSecond,
            Run::cpuNanosPerRecord,
            Run::cpuAfterMainNanosPerRecord,
            Run::allocatedAfterMainBytesPerRecord);
    List<String> titles =
        List.of(
            "throughput",
            "CPU per record",
            "CPU per record after main (start-up left out)",
            "bytes allocated per record after main (start-up left out)");
    for (int i = 0; i < fields.size(); i++) {
      String title = titles.get(i) + ", % of " + base;
      panel(svg, variants, loads, runs, fields.get(i), title, i * panelSpan, width);
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static void panel(
      StringBuilder svg,
      List<Variant> variants,
      List<Load> loads,
      List<Run> runs,
      ToDoubleFunction<Run> field,
      String title,
      int offset,
      int width) {
    int top = PANEL_TOP + offset;
    int bottom = top + PANEL_HEIGHT;
    // Scale: the largest whisker, rounded up to 50%, at least 150%.
    double max = 150;
    for (Load load : loads) {
      double base = BenchSuite.median(BenchSuite.of(runs, variants.get(0), load), field);
      for (Variant variant : variants) {
        for (Run run : BenchSuite.of(runs, variant, load)) {
          double pct = 100 * field.applyAsDouble(run) / base;
          if (Double.isFinite(pct)) {
            max = Math.max(max, pct);
          }
        }
      }
    }
    max = Math.ceil(max / 50) * 50;
    final double scale = PANEL_HEIGHT / max;
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>%n",
            LEFT,
            top - 8,
            escape(title)));
    int step = max > 400 ? 100 : 50;
    for (int pct = 0; pct <= max; pct += step) {
      double y = bottom - pct * scale;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>%n",
              LEFT,
              y,
              width - 10,
              y,
              pct == 100 ? "#555" : "#ddd",
              LEFT - 4,
              y + 4,
              pct));
    }
    int groupWidth = Math.max(1, variants.size()) * BAR + GAP;
    for (int l = 0; l < loads.size(); l++) {
      Load load = loads.get(l);
      int x0 = LEFT + GAP / 2 + l * groupWidth;
      double base = BenchSuite.median(BenchSuite.of(runs, variants.get(0), load), field);
      for (int v = 0; v < variants.size(); v++) {
        List<Run> list = BenchSuite.of(runs, variants.get(v), load);
        if (list.isEmpty() || !(base > 0)) {
          continue;
        }
        double median = 100 * BenchSuite.median(list, field) / base;
        double low = 100 * list.stream().mapToDouble(field).min().orElse(0) / base;
        double high = 100 * list.stream().mapToDouble(field).max().orElse(0) / base;
        int x = x0 + v * BAR;
        double y = bottom - median * scale;
        svg.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
                    + "<title>%s, %s: %.1f%% (%.1f%% to %.1f%%)</title></rect>%n",
                x,
                y,
                BAR - 2,
                bottom - y,
                COLORS[v % COLORS.length],
                escape(variants.get(v).label),
                escape(load.label()),
                median,
                low,
                high));
        double cx = x + (BAR - 2) / 2.0;
        svg.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
                    + "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
                    + "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>%n",
                cx,
                bottom - high * scale,
                cx,
                bottom - low * scale,
                cx - 3,
                bottom - high * scale,
                cx + 3,
                bottom - high * scale,
                cx - 3,
                bottom - low * scale,
                cx + 3,
                bottom - low * scale));
      }
      // The load's name under its group, turned so that long names fit.
      int lx = x0 + variants.size() * BAR / 2;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" transform=\"rotate(30 %d %d)\">%s</text>%n",
              lx - 20,
              bottom + 14,
              lx - 20,
              bottom + 14,
              escape(load.label())));
    }
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
