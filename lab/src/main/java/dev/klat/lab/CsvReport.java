package dev.klat.lab;

import java.util.List;
import java.util.Locale;

/** The report's figures as CSV: one row per setting, times in milliseconds. */
final class CsvReport {

  private CsvReport() {}

  static String of(List<Result> results) {
    StringBuilder csv =
        new StringBuilder("experiment,setting,partitions,record_bytes,keyed,producers");
    csv.append(
        ",fixed_rate_records_per_second,unbounded_records_per_second,failed_sends,breakdowns");
    csv.append(",e2e_p50_ms,e2e_p99_ms,e2e_p999_ms");
    for (String segment : Findings.SEGMENTS) {
      csv.append(",p99_tail_").append(segment.replace('-', '_').replace('+', '_')).append("_ms");
    }
    for (String segment : Findings.SEGMENTS) {
      csv.append(",p50_").append(segment.replace('-', '_').replace('+', '_')).append("_ms");
    }
    csv.append(",error\n");
    for (Result result : results) {
      Setting setting = result.setting();
      csv.append(result.experiment().name()).append(',');
      csv.append(quote(setting.label())).append(',');
      csv.append(setting.partitions()).append(',').append(setting.recordBytes()).append(',');
      csv.append(setting.keyed()).append(',').append(setting.producers()).append(',');
      csv.append(number(result.error() == null ? result.fixedRateRecordsPerSecond() : null));
      csv.append(',').append(number(result.burstRecordsPerSecond()));
      csv.append(',').append(result.failedSends()).append(',').append(result.breakdowns());
      var breakdown = result.breakdown();
      csv.append(',').append(number(breakdown == null ? null : ms(breakdown.p50Seconds)));
      csv.append(',').append(number(breakdown == null ? null : ms(breakdown.p99Seconds)));
      csv.append(',').append(number(breakdown == null ? null : ms(breakdown.p999Seconds)));
      for (String segment : Findings.SEGMENTS) {
        Double seconds = breakdown == null ? null : breakdown.tailMeanSeconds.get(segment);
        csv.append(',').append(number(ms(seconds)));
      }
      for (String segment : Findings.SEGMENTS) {
        Double seconds = breakdown == null ? null : breakdown.segmentP50Seconds.get(segment);
        csv.append(',').append(number(ms(seconds)));
      }
      csv.append(',').append(result.error() == null ? "" : quote(result.error())).append('\n');
    }
    return csv.toString();
  }

  private static Double ms(Double seconds) {
    return seconds == null ? null : seconds * 1000;
  }

  private static String number(Double value) {
    return value == null ? "" : String.format(Locale.ROOT, "%.3f", value);
  }

  private static String quote(String text) {
    return "\"" + text.replace("\"", "\"\"") + "\"";
  }
}
