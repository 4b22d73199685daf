package dev.klat.lab;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The runs of one setting (one with {@code --repeats 1}), and their figures as medians with the
 * range the runs covered. A run that failed, or had no breakdowns, counts for none of the latency
 * figures; the setting failed only when every run did.
 */
record SettingRuns(Experiment experiment, Setting setting, List<Result> runs) implements Figures {

  /**
   * The results grouped by setting, in the order of the settings in their experiment (the order the
   * charts show), whatever order the runs had.
   */
  static List<SettingRuns> of(List<Result> results) {
    Map<String, List<Result>> bySetting = new LinkedHashMap<>();
    for (Result result : results) {
      String key = result.experiment().name() + "\u0000" + result.setting().label();
      bySetting.computeIfAbsent(key, k -> new ArrayList<>()).add(result);
    }
    List<SettingRuns> grouped = new ArrayList<>();
    for (List<Result> runs : bySetting.values()) {
      Result first = runs.get(0);
      grouped.add(new SettingRuns(first.experiment(), first.setting(), List.copyOf(runs)));
    }
    // Stable: settings not in their experiment's list (hand-built in tests) keep their order.
    grouped.sort(
        Comparator.comparingInt(
            s -> {
              int index = s.experiment().settings().indexOf(s.setting());
              return index < 0 ? Integer.MAX_VALUE : index;
            }));
    return grouped;
  }

  /** The runs that did not fail. */
  List<Result> succeeded() {
    return runs.stream().filter(r -> r.error() == null).toList();
  }

  @Override
  public String error() {
    List<Result> ok = succeeded();
    return ok.isEmpty() ? runs.get(0).error() : null;
  }

  /** How many runs failed. */
  long failedRuns() {
    return runs.size() - succeeded().size();
  }

  Spread tail(String segment) {
    return spread(r -> r.tailMs(segment));
  }

  Spread p50(String segment) {
    return spread(r -> r.p50Ms(segment));
  }

  Spread p99() {
    return spread(Result::p99Ms);
  }

  Spread e2eP50() {
    return spread(Result::e2eP50Ms);
  }

  Spread p999() {
    return spread(Result::p999Ms);
  }

  Spread burst() {
    return spread(Result::burstRecordsPerSecond);
  }

  Spread consumer() {
    return spread(Result::consumerRecordsPerSecond);
  }

  Spread fixedRate() {
    return spread(Result::fixedRateRecordsPerSecond);
  }

  @Override
  public Double tailMs(String segment) {
    return median(tail(segment));
  }

  @Override
  public Double p50Ms(String segment) {
    return median(p50(segment));
  }

  @Override
  public Double p99Ms() {
    return median(p99());
  }

  @Override
  public Double burstRecordsPerSecond() {
    return median(burst());
  }

  /** The median number of breakdowns of the runs that did not fail. */
  @Override
  public long breakdowns() {
    Spread count = spread(r -> (double) r.breakdowns());
    return count == null ? 0 : Math.round(count.median());
  }

  long failedSends() {
    return runs.stream().mapToLong(Result::failedSends).sum();
  }

  private Spread spread(Function<Result, Double> figure) {
    List<Double> values = new ArrayList<>();
    for (Result run : succeeded()) {
      values.add(figure.apply(run));
    }
    return Spread.of(values);
  }

  private static Double median(Spread spread) {
    return spread == null ? null : spread.median();
  }
}
