package dev.klat.lab;

import java.util.Locale;

/** The terminal's lines: one per run as it ends, and one per repeated setting at the end. */
final class Summary {

  private Summary() {}

  static String line(Result result) {
    if (result.error() != null) {
      return result.setting().label() + ": failed: " + result.error();
    }
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%s: %.0f rec/s%s%s, n=%d",
                result.setting().label(),
                result.fixedRateRecordsPerSecond(),
                result.burstRecordsPerSecond() == null
                    ? ""
                    : String.format(
                        Locale.ROOT, " (unbounded %.0f rec/s)", result.burstRecordsPerSecond()),
                result.consumerRecordsPerSecond() == null
                    ? ""
                    : String.format(
                        Locale.ROOT, " (consumer %.0f rec/s)", result.consumerRecordsPerSecond()),
                result.breakdowns()));
    if (result.breakdowns() > 0) {
      line.append(" p50=")
          .append(Findings.ms(result.breakdown().p50Seconds * 1000))
          .append(" p99=")
          .append(Findings.ms(result.p99Ms()))
          .append(" | p99 tail:");
      for (String segment : Findings.SEGMENTS) {
        Double ms = result.tailMs(segment);
        if (ms != null) {
          line.append(' ').append(segment).append(' ').append(Findings.ms(ms));
        }
      }
    }
    return line.toString();
  }

  /** The medians of a repeated setting's runs, with their ranges. */
  static String line(SettingRuns runs) {
    if (runs.error() != null) {
      return runs.setting().label() + ": failed: " + runs.error();
    }
    StringBuilder line =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%s, median of %d runs%s: %s rec/s%s%s, n=%d",
                runs.setting().label(),
                runs.succeeded().size(),
                runs.failedRuns() > 0 ? " (" + runs.failedRuns() + " failed)" : "",
                Findings.rate(runs.fixedRate()),
                runs.burst() == null ? "" : " (unbounded " + Findings.rate(runs.burst()) + ")",
                runs.consumer() == null ? "" : " (consumer " + Findings.rate(runs.consumer()) + ")",
                runs.breakdowns()));
    if (runs.breakdowns() > 0) {
      line.append(" p99=").append(Findings.ms(runs.p99())).append(" | p99 tail:");
      for (String segment : Findings.SEGMENTS) {
        Spread ms = runs.tail(segment);
        if (ms != null && runs.tailMs(segment) != null) {
          line.append(' ').append(segment).append(' ').append(Findings.ms(ms));
        }
      }
    }
    return line.toString();
  }
}
