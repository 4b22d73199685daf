package dev.klat.collector.diagnose;

import dev.klat.collector.aggregate.RecentBreakdowns;
import java.util.List;

/**
 * What {@code /api/diagnosis} answers.
 *
 * @param records sampled breakdowns in the window
 * @param p99Seconds the window's end-to-end p99 over the sampled breakdowns, or null when there are
 *     none
 * @param tailRecords the records the diagnosis weighs: the tail records of the window and the
 *     sampled breakdowns at or above the sampled p99
 * @param tailMeanSeconds their mean end-to-end latency, over those that know it
 * @param findings most explaining first; each says how many of the records it is computed from
 * @param unexplained why there is no finding, or null when there is one
 * @param tailCaptured how many of {@code tailRecords} are tail records ({@code capture} {@code
 *     tail})
 * @param tailOpentelemetry how many of {@code tailRecords} an OpenTelemetry instrumentation
 *     reported ({@code capture} {@code opentelemetry}, section 10 of the latency model: weighed
 *     against their own p99); the rest are sampled
 */
public record DiagnosisReport(
    int records,
    Double p99Seconds,
    int tailRecords,
    double tailMeanSeconds,
    List<Finding> findings,
    String unexplained,
    int tailCaptured,
    int tailOpentelemetry) {

  /** A report without records from an OpenTelemetry instrumentation. */
  public DiagnosisReport(
      int records,
      Double p99Seconds,
      int tailRecords,
      double tailMeanSeconds,
      List<Finding> findings,
      String unexplained,
      int tailCaptured) {
    this(records, p99Seconds, tailRecords, tailMeanSeconds, findings, unexplained, tailCaptured, 0);
  }

  /** A report without tail records. */
  public DiagnosisReport(
      int records,
      Double p99Seconds,
      int tailRecords,
      double tailMeanSeconds,
      List<Finding> findings,
      String unexplained) {
    this(records, p99Seconds, tailRecords, tailMeanSeconds, findings, unexplained, 0);
  }

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
        unexplained,
        tail.tailCaptured(),
        tail.opentelemetry());
  }
}
