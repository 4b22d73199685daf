package dev.klat.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's figures as CSV, times in milliseconds: one row per run in the order the runs went
 * ({@code run} is the setting's run number), then, when settings ran more than once, three rows per
 * setting whose {@code run} is {@code median}, {@code min} and {@code max} of its runs that did not
 * fail (each column on its own).
 */
final class CsvReport {

  private CsvReport() {}

  static String of(List<Result> results) {
    StringBuilder csv =
        new StringBuilder("experiment,setting,run,partitions,record_bytes,keyed,producers");
    csv.append(
        ",fixed_rate_records_per_second,unbounded_records_per_second,consumer_records_per_second");
    csv.append(",failed_sends,breakdowns");
    csv.append(",e2e_p50_ms,e2e_p99_ms,e2e_p999_ms");
    for (String segment : Findings.SEGMENTS) {
      csv.append(",p99_tail_").append(column(segment)).append("_ms");
    }
    for (String segment : Findings.SEGMENTS) {
      csv.append(",p50_").append(column(segment)).append("_ms");
    }
    csv.append(",error\n");
    for (Result result : results) {
      row(csv, result.experiment(), result.setting(), Integer.toString(result.repeat()));
      List<Double> figures = figures(result);
      for (int c = 0; c < figures.size(); c++) {
        csv.append(',').append(number(c, figures.get(c)));
      }
      csv.append(',').append(result.error() == null ? "" : quote(result.error())).append('\n');
    }
    for (SettingRuns runs : SettingRuns.of(results)) {
      if (runs.runs().size() < 2) {
        continue;
      }
      List<Spread> spreads = new ArrayList<>();
      List<List<Double>> columns = new ArrayList<>();
      for (Result run : runs.succeeded()) {
        List<Double> figures = figures(run);
        for (int c = 0; c < figures.size(); c++) {
          if (columns.size() <= c) {
            columns.add(new ArrayList<>());
          }
          columns.get(c).add(figures.get(c));
        }
      }
      for (List<Double> column : columns) {
        spreads.add(Spread.of(column));
      }
      String failed =
          runs.failedRuns() == 0 ? "" : quote(runs.failedRuns() + " runs failed, not counted");
      for (String which : List.of("median", "min", "max")) {
        row(csv, runs.experiment(), runs.setting(), which);
        if (spreads.isEmpty()) {
          csv.append(",".repeat(columnCount()));
        }
        for (int c = 0; c < spreads.size(); c++) {
          Spread spread = spreads.get(c);
          Double value =
              spread == null
                  ? null
                  : switch (which) {
                    case "median" -> spread.median();
                    case "min" -> spread.min();
                    default -> spread.max();
                  };
          csv.append(',').append(number(c, value));
        }
        csv.append(',').append(failed).append('\n');
      }
    }
    return csv.toString();
  }

  private static void row(StringBuilder csv, Experiment experiment, Setting setting, String run) {
    csv.append(experiment.name()).append(',');
    csv.append(quote(setting.label())).append(',').append(run).append(',');
    csv.append(setting.partitions()).append(',').append(setting.recordBytes()).append(',');
    csv.append(setting.keyed()).append(',').append(setting.producers());
  }

  private static int columnCount() {
    return 5 + 3 + 2 * Findings.SEGMENTS.size();
  }

  /** The numeric columns of one run, in the header's order. */
  private static List<Double> figures(Result result) {
    List<Double> figures = new ArrayList<>();
    var breakdown = result.breakdown();
    figures.add(result.error() == null ? result.fixedRateRecordsPerSecond() : null);
    figures.add(result.burstRecordsPerSecond());
    figures.add(result.consumerRecordsPerSecond());
    figures.add((double) result.failedSends());
    figures.add((double) result.breakdowns());
    figures.add(result.e2eP50Ms());
    figures.add(result.p99Ms());
    figures.add(result.p999Ms());
    for (String segment : Findings.SEGMENTS) {
      figures.add(breakdown == null ? null : ms(breakdown.tailMeanSeconds.get(segment)));
    }
    for (String segment : Findings.SEGMENTS) {
      figures.add(breakdown == null ? null : ms(breakdown.segmentP50Seconds.get(segment)));
    }
    return figures;
  }

  private static String column(String segment) {
    return segment.replace('-', '_').replace('+', '_');
  }

  private static Double ms(Double seconds) {
    return seconds == null ? null : seconds * 1000;
  }

  // Columns 3 and 4 (failed sends, breakdowns) are counts: whole numbers unless a median of two.
  private static String number(int column, Double value) {
    if (value == null) {
      return "";
    }
    boolean count = column == 3 || column == 4;
    return count && value == Math.rint(value)
        ? Long.toString(Math.round(value))
        : String.format(Locale.ROOT, "%.3f", value);
  }

  private static String quote(String text) {
    return "\"" + text.replace("\"", "\"\"") + "\"";
  }
}
