package dev.klat.lab;

import java.util.Locale;

/** The terminal's lines: one per setting as it ends. */
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
                "%s: %.0f rec/s%s, n=%d",
                result.setting().label(),
                result.fixedRateRecordsPerSecond(),
                result.burstRecordsPerSecond() == null
                    ? ""
                    : String.format(
                        Locale.ROOT, " (unbounded %.0f rec/s)", result.burstRecordsPerSecond()),
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
}
