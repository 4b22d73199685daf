package dev.klat.collector.diagnose;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Ranks what explains a window's tail: every rule's findings that explain at least {@link
 * #MIN_SHARE} of the tail's mean, most first. The tail is the window's tail records (section 8 of
 * the latency model) and the sampled records of its sampled p99 tail; each rule weighs those that
 * know its segment, at least {@link #MIN_TAIL_RECORDS} of them, and each finding says how many. A
 * cause named only by its segment (the network, the replication, the application) must explain at
 * least {@link #SEGMENT_CAUSE_SHARE}, so that a tail spread evenly over the segments is left
 * unexplained instead of pinned on one of them.
 */
public final class Diagnosis {
  /** The least share of the tail a finding must explain to be shown. */
  static final double MIN_SHARE = 0.10;

  /**
   * The least share a cause without a knob's evidence, named by its segment alone, must explain.
   */
  static final double SEGMENT_CAUSE_SHARE = 0.30;

  /**
   * The fewest records a tail is weighed on: the tail records and the sampled p99 tail, widened to
   * this many with the slowest sampled records when smaller (at a low rate); a window or a rule
   * with fewer records is not weighed at all.
   */
  public static final int MIN_TAIL_RECORDS = 5;

  private static final List<Rule> RULES =
      List.of(
          new ProduceRules(),
          new PublishRules(),
          new CommitRule(),
          new CatchUpRules(),
          new ShareRules(),
          new FetchRules(),
          new ProduceAndPublishRules(),
          new CatchUpAndFetchRules());

  private Diagnosis() {}

  /**
   * The diagnosis of the breakdowns joined within a window.
   *
   * @param summary the window's summary
   * @param tail the window's p99 tail
   * @param brokers the brokers' request timings, looked up at each record's drain
   * @param commitWaits the leaders' high-watermark waits, from their probes
   * @param windowStartEpochNanos when the window began, on the brokers' scrape clock (epoch): the
   *     brokers' ISR changes are counted from there
   * @param windowNanos the window's length, as the evidence names it
   */
  public static DiagnosisReport diagnose(
      RecentBreakdowns.Summary summary,
      List<TailRecord> tail,
      BrokerTimings brokers,
      CommitWaits commitWaits,
      long windowStartEpochNanos,
      long windowNanos) {
    long[] medians = new long[Segment.values().length];
    long[] p99s = new long[Segment.values().length];
    for (Segment s : Segment.values()) {
      RecentBreakdowns.SegmentQuantiles q = summary.segments().get(s.id());
      medians[s.ordinal()] = q == null ? -1 : q.p50Nanos();
      p99s[s.ordinal()] = q == null ? -1 : q.p99Nanos();
    }
    TailEvidence evidence =
        new TailEvidence(
            tail,
            medians,
            p99s,
            brokers,
            commitWaits,
            new TailEvidence.Window(windowStartEpochNanos, windowNanos));
    if (evidence.size() < MIN_TAIL_RECORDS) {
      return DiagnosisReport.of(
          summary,
          evidence,
          List.of(),
          "Too few breakdowns in the window ("
              + evidence.size()
              + ") to say what explains its tail: widen the window or sample more records.");
    }
    List<Finding> findings = new ArrayList<>();
    for (Rule rule : RULES) {
      // A partial tail record without the rule's segment is skipped; the finding counts the rest.
      TailEvidence known = evidence.weighedBy(rule);
      if (known.size() < MIN_TAIL_RECORDS) {
        continue;
      }
      for (Finding f : rule.explain(known)) {
        if (f.tailShare() >= MIN_SHARE) {
          findings.add(f);
        }
      }
    }
    findings.sort(Comparator.comparingDouble(Finding::tailShare).reversed());
    String unexplained =
        findings.isEmpty()
            ? "Nothing explains the p99 tail: no knob's evidence holds, and no segment takes"
                + " more than "
                + Math.round(SEGMENT_CAUSE_SHARE * 100)
                + "% of it. The breakdown shows where the time goes."
            : null;
    return DiagnosisReport.of(summary, evidence, findings, unexplained);
  }
}
