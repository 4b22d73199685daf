package dev.klat.collector.diagnose;

import dev.klat.collector.aggregate.RecentBreakdowns;
import java.util.List;

/**
 * What {@code /api/diagnosis} answers.
 *
 * @param records breakdowns in the window
 * @param p99Seconds the window's end-to-end p99, or null when there are none
 * @param tailRecords breakdowns at or above the p99
 * @param tailMeanSeconds their mean end-to-end latency, what each finding's share is of
 * @param findings most explaining first
 * @param unexplained why there is no finding, or null when there is one
 */
public record DiagnosisReport(
    int records,
    Double p99Seconds,
    int tailRecords,
    double tailMeanSeconds,
    List<Finding> findings,
    String unexplained) {

  static DiagnosisReport of(
      RecentBreakdowns.Summary summary,
      TailEvidence tail,
      List<Finding> findings,
      String unexplained) {
    return new DiagnosisReport(
        summary.count(),
        summary.p99Nanos() < 0 ? null : summary.p99Nanos() / 1e9,
        tail.size(),
        tail.e2eMeanNanos() / 1e9,
        List.copyOf(findings),
        unexplained);
  }
}
