package dev.klat.lab;

import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an experiment showed, in plain sentences computed from its results: for each setting, the
 * segment of the p99 tail that moved most from the baseline (the first setting), how far the others
 * moved, and what happened to end-to-end p99 and to throughput.
 */
final class Findings {

  /** Segments in the order of the latency model, with publish and commit together last. */
  static final List<String> SEGMENTS = segments();

  // A move smaller than this is within the run-to-run spread of a loaded 2-core machine.
  private static final double NOISE_MS = 2;

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
   * breakdowns), plus the throughput when it was measured.
   */
  static List<String> of(List<Result> results) {
    List<String> sentences = new ArrayList<>();
    if (results.isEmpty()) {
      return sentences;
    }
    Map<String, Result> baselines = new HashMap<>();
    for (Result result : results) {
      Result baseline = baselines.get(result.setting().series());
      if (result.error() != null) {
        sentences.add(result.setting().label() + " failed: " + result.error());
      } else if (result.breakdowns() == 0) {
        sentences.add(result.setting().label() + ": " + noBreakdowns(result));
      } else if (baseline == null) {
        baselines.put(result.setting().series(), result);
        sentences.add(
            "baseline "
                + result.setting().label()
                + ": end-to-end p99 "
                + ms(result.p99Ms())
                + ", the p99 tail mostly "
                + largest(result)
                + ".");
      } else {
        sentences.add(moved(baseline, result));
      }
    }
    String throughput = throughput(results);
    if (throughput != null) {
      sentences.add(throughput);
    }
    return sentences;
  }

  /** The segment with the largest tail mean of {@code result}, with its value. */
  static String largest(Result result) {
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
  static String mostMoved(Result baseline, Result result) {
    String moved = mostMoved(baseline, result, true);
    return moved != null ? moved : mostMoved(baseline, result, false);
  }

  private static String mostMoved(Result baseline, Result result, boolean medianAgrees) {
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
  static double largestOtherMoveMs(Result baseline, Result result, String except) {
    return largestOtherMove(baseline, result, except, false);
  }

  /** The same for the segments' medians: what a tail of a few records cannot show. */
  static double largestOtherMedianMoveMs(Result baseline, Result result, String except) {
    return largestOtherMove(baseline, result, except, true);
  }

  private static double largestOtherMove(
      Result baseline, Result result, String except, boolean median) {
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

  private static String moved(Result baseline, Result result) {
    String label = result.setting().label();
    String segment = mostMoved(baseline, result);
    String e2e = "; end-to-end p99 " + ms(baseline.p99Ms()) + " -> " + ms(result.p99Ms()) + ".";
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
    return String.format(
        Locale.ROOT,
        "on this cluster %s moved the p99 tail's %s from %s to %s and %s%s",
        label,
        segment,
        ms(before),
        ms(after),
        others < NOISE_MS
            ? "left the other segments within " + ms(Math.max(others, 0.1))
            : "moved the others' tail by up to "
                + ms(others)
                + " (their medians by up to "
                + ms(largestOtherMedianMoveMs(baseline, result, segment))
                + ")",
        e2e);
  }

  private static String noBreakdowns(Result result) {
    if ("0".equals(result.setting().producerConfig().get("acks"))) {
      return "no breakdowns: with acks=0 the producer never learns its records' offsets, so klat"
          + " cannot join them with the consumer's (throughput is still measured)";
    }
    return "no breakdowns in the measured window (the applications' logs say why)";
  }

  private static String throughput(List<Result> results) {
    Result first = null;
    Result best = null;
    for (Result result : results) {
      if (result.burstRecordsPerSecond() != null && result.burstRecordsPerSecond() > 0) {
        first = first == null ? result : first;
        if (best == null || result.burstRecordsPerSecond() > best.burstRecordsPerSecond()) {
          best = result;
        }
      }
    }
    if (first == null) {
      return null;
    }
    if (best == first) {
      return String.format(
          Locale.ROOT,
          "unbounded-rate throughput was highest at %s: %.0f records/s.",
          first.setting().label(),
          first.burstRecordsPerSecond());
    }
    return String.format(
        Locale.ROOT,
        "unbounded-rate throughput went from %.0f records/s at %s to %.0f at %s (x%.1f).",
        first.burstRecordsPerSecond(),
        first.setting().label(),
        best.burstRecordsPerSecond(),
        best.setting().label(),
        best.burstRecordsPerSecond() / first.burstRecordsPerSecond());
  }

  /** Milliseconds as the report prints them: one decimal below 100. */
  static String ms(Double millis) {
    if (millis == null) {
      return "-";
    }
    return millis >= 100
        ? String.format(Locale.ROOT, "%.0f ms", millis)
        : String.format(Locale.ROOT, "%.1f ms", millis);
  }
}
