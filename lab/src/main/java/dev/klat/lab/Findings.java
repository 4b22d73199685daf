package dev.klat.lab;

import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * What an experiment showed, in plain sentences computed from its results: for each setting, the
 * segment of the p99 tail that moved most from the baseline (the first setting), how far the others
 * moved, and what happened to end-to-end p99 and to throughput.
 */
final class Findings {

  /** Segments in the order of the latency model, with publish and commit together last. */
  static final List<String> SEGMENTS = segments();

  // A move smaller than this is within the run-to-run spread of a loaded 2-core machine.
  static final double NOISE_MS = 2;

  private Findings() {}

  private static List<String> segments() {
    List<String> ids = new ArrayList<>();
    for (Segment segment : Segment.values()) {
      ids.add(segment.id());
    }
    ids.add("publish+commit");
    return ids;
  }

  /**
   * One sentence per setting after the baseline of its series (the first setting of the series with
   * breakdowns), plus the throughput when it was measured. The runs of a repeated setting are
   * compared by their medians, and a move inside the range of either setting's runs is called so.
   */
  static List<String> of(List<Result> results) {
    List<String> sentences = new ArrayList<>();
    List<SettingRuns> settings = SettingRuns.of(results);
    if (settings.isEmpty()) {
      return sentences;
    }
    Map<String, SettingRuns> baselines = new HashMap<>();
    for (SettingRuns runs : settings) {
      SettingRuns baseline = baselines.get(runs.setting().series());
      String failedRuns =
          runs.failedRuns() > 0 && runs.error() == null
              ? " (" + runs.failedRuns() + " of " + runs.runs().size() + " runs failed)"
              : "";
      if (runs.error() != null) {
        sentences.add(runs.setting().label() + " failed: " + runs.error());
      } else if (runs.breakdowns() == 0) {
        sentences.add(runs.setting().label() + ": " + noBreakdowns(runs) + failedRuns);
      } else if (baseline == null) {
        baselines.put(runs.setting().series(), runs);
        sentences.add(
            "baseline "
                + runs.setting().label()
                + ": end-to-end p99 "
                + ms(runs.p99())
                + ", the p99 tail mostly "
                + largest(runs)
                + "."
                + failedRuns);
      } else {
        sentences.add(moved(baseline, runs) + failedRuns);
      }
    }
    String throughput = throughput(settings, SettingRuns::burst, "unbounded-rate throughput");
    if (throughput != null) {
      sentences.add(throughput);
    }
    String consumer =
        throughput(
            settings,
            SettingRuns::consumer,
            "the consumer's own throughput (reading the unbounded run's records)");
    if (consumer != null) {
      sentences.add(consumer);
    }
    return sentences;
  }

  /** The segment with the largest tail mean of {@code result}, with its value. */
  static String largest(Figures result) {
    String best = null;
    double most = -1;
    for (String segment : SEGMENTS) {
      Double ms = result.tailMs(segment);
      if (ms != null && ms > most) {
        most = ms;
        best = segment;
      }
    }
    return best == null ? "unknown" : best + " (" + ms(most) + ")";
  }

  /**
   * The segment of {@code result}'s tail that differs most from {@code baseline}'s, among the
   * segments whose median moved the same way by {@value #NOISE_MS} ms or more; among all segments
   * when none did; null when no segment is known in both. The p99 tail of a short window is a few
   * records, and one scheduling hiccup on a loaded machine moves it by 100 ms or more: a move the
   * median shares is the setting's.
   */
  static String mostMoved(Figures baseline, Figures result) {
    String moved = mostMoved(baseline, result, true);
    return moved != null ? moved : mostMoved(baseline, result, false);
  }

  private static String mostMoved(Figures baseline, Figures result, boolean medianAgrees) {
    String moved = null;
    double most = -1;
    for (String segment : SEGMENTS) {
      Double before = baseline.tailMs(segment);
      Double after = result.tailMs(segment);
      if (before == null || after == null || Math.abs(after - before) <= most) {
        continue;
      }
      if (medianAgrees) {
        Double medianBefore = baseline.p50Ms(segment);
        Double medianAfter = result.p50Ms(segment);
        if (medianBefore == null
            || medianAfter == null
            || Math.abs(medianAfter - medianBefore) < NOISE_MS
            || Math.signum(medianAfter - medianBefore) != Math.signum(after - before)) {
          continue;
        }
      }
      most = Math.abs(after - before);
      moved = segment;
    }
    return moved;
  }

  /**
   * The largest move, in ms, of the p99 tail's mean of any segment known in both other than {@code
   * except}.
   */
  static double largestOtherMoveMs(Figures baseline, Figures result, String except) {
    return largestOtherMove(baseline, result, except, false);
  }

  /** The same for the segments' medians: what a tail of a few records cannot show. */
  static double largestOtherMedianMoveMs(Figures baseline, Figures result, String except) {
    return largestOtherMove(baseline, result, except, true);
  }

  private static double largestOtherMove(
      Figures baseline, Figures result, String except, boolean median) {
    double most = 0;
    for (String segment : SEGMENTS) {
      Double before = median ? baseline.p50Ms(segment) : baseline.tailMs(segment);
      Double after = median ? result.p50Ms(segment) : result.tailMs(segment);
      if (!segment.equals(except) && before != null && after != null) {
        most = Math.max(most, Math.abs(after - before));
      }
    }
    return most;
  }

  private static String moved(SettingRuns baseline, SettingRuns result) {
    String label = result.setting().label();
    String segment = mostMoved(baseline, result);
    String e2e = "; end-to-end p99 " + ms(baseline.p99()) + " -> " + ms(result.p99()) + ".";
    if (segment == null) {
      return label + ": no segment known in both runs" + e2e;
    }
    double before = baseline.tailMs(segment);
    double after = result.tailMs(segment);
    double others = largestOtherMoveMs(baseline, result, segment);
    if (Math.abs(after - before) < NOISE_MS) {
      return "on this cluster "
          + label
          + " moved no segment of the p99 tail by "
          + ms(NOISE_MS)
          + " or more"
          + e2e;
    }
    Spread beforeRuns = baseline.tail(segment);
    Spread afterRuns = result.tail(segment);
    if (beforeRuns.overlaps(afterRuns)) {
      // Single runs never overlap unless equal, so this is the repeats' verdict only.
      return String.format(
          Locale.ROOT,
          "on this cluster %s moved no segment of the p99 tail beyond the spread of the repeats:"
              + " the largest move, %s from %s to %s (medians), is inside the runs' ranges (%s"
              + " against %s)%s",
          label,
          segment,
          ms(before),
          ms(after),
          beforeRuns.rangeMs(),
          afterRuns.rangeMs(),
          e2e);
    }
    return String.format(
        Locale.ROOT,
        "on this cluster %s moved the p99 tail's %s from %s to %s%s and %s%s",
        label,
        segment,
        ms(before),
        ms(after),
        beforeRuns.count() > 1 || afterRuns.count() > 1
            ? String.format(
                Locale.ROOT,
                " (medians of %d and %d runs, ranges %s and %s)",
                beforeRuns.count(),
                afterRuns.count(),
                beforeRuns.rangeMs(),
                afterRuns.rangeMs())
            : "",
        others < NOISE_MS
            ? "left the other segments within " + ms(Math.max(others, 0.1))
            : "moved the others' tail by up to "
                + ms(others)
                + (largestOtherMoveBeyondSpreadMs(baseline, result, segment) < NOISE_MS
                    ? ", inside the spread of the repeats"
                    : "")
                + " (their medians by up to "
                + ms(largestOtherMedianMoveMs(baseline, result, segment))
                + ")",
        e2e);
  }

  /**
   * The largest move of another segment's tail whose runs' ranges do not overlap the baseline's:
   * with one run each, the same as {@link #largestOtherMoveMs}.
   */
  static double largestOtherMoveBeyondSpreadMs(
      SettingRuns baseline, SettingRuns result, String except) {
    double most = 0;
    for (String segment : SEGMENTS) {
      Spread before = baseline.tail(segment);
      Spread after = result.tail(segment);
      if (!segment.equals(except) && before != null && after != null && !before.overlaps(after)) {
        most = Math.max(most, Math.abs(after.median() - before.median()));
      }
    }
    return most;
  }

  private static String noBreakdowns(Figures result) {
    if ("0".equals(result.setting().producerConfig().get("acks"))) {
      return "no breakdowns: with acks=0 the producer never learns its records' offsets, so klat"
          + " cannot join them with the consumer's (throughput is still measured)";
    }
    return "no breakdowns in the measured window (the applications' logs say why)";
  }

  /** From the first setting that has the figure to the one where it was highest. */
  private static String throughput(
      List<SettingRuns> settings, Function<SettingRuns, Spread> figure, String what) {
    SettingRuns first = null;
    SettingRuns best = null;
    for (SettingRuns runs : settings) {
      Spread value = figure.apply(runs);
      if (value != null && value.median() > 0) {
        first = first == null ? runs : first;
        if (best == null || value.median() > figure.apply(best).median()) {
          best = runs;
        }
      }
    }
    if (first == null) {
      return null;
    }
    Spread from = figure.apply(first);
    Spread to = figure.apply(best);
    if (best == first) {
      return String.format(
          Locale.ROOT,
          "%s was highest at %s: %s records/s.",
          what,
          first.setting().label(),
          rate(from));
    }
    String sentence =
        String.format(
            Locale.ROOT,
            "%s went from %s records/s at %s to %s at %s (x%.1f)",
            what,
            rate(from),
            first.setting().label(),
            rate(to),
            best.setting().label(),
            to.median() / from.median());
    return from.overlaps(to)
        ? sentence + ", inside the spread of the repeats: not a difference these runs can tell."
        : sentence + ".";
  }

  /** A median rate, with the runs' range when they differ as printed. */
  static String rate(Spread spread) {
    if (spread == null) {
      return "-";
    }
    String median = String.format(Locale.ROOT, "%.0f", spread.median());
    return spread.shownRate() ? median + " (" + spread.rangeRate() + ")" : median;
  }

  /** A median in milliseconds, with the runs' range when they differ as printed. */
  static String ms(Spread spread) {
    if (spread == null) {
      return "-";
    }
    return spread.shownMs()
        ? ms(spread.median()) + " (" + spread.rangeMs() + ")"
        : ms(spread.median());
  }

  /** Milliseconds as the report prints them: one decimal below 100. */
  static String ms(Double millis) {
    return millis == null ? "-" : number(millis) + " ms";
  }

  /** A number of milliseconds without its unit: one decimal below 100. */
  static String number(double millis) {
    return millis >= 100
        ? String.format(Locale.ROOT, "%.0f", millis)
        : String.format(Locale.ROOT, "%.1f", millis);
  }
}
