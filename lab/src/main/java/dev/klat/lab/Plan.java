package dev.klat.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the lab spends its time budget: the experiments and values it runs, how many times each, each
 * run's warm-up, measured window and unbounded-rate run, and what it had to leave out.
 *
 * @param burstMs 0 when the budget leaves no time for the unbounded-rate run
 * @param repeats how many times each setting runs ({@link RunOrder} gives the order)
 * @param skipped what was left out, in words, one entry per value or experiment
 */
record Plan(
    List<Experiment> experiments,
    long warmupMs,
    long measureMs,
    long burstMs,
    int repeats,
    List<String> skipped) {

  // Measured on the 2-core development machine: starting 3 broker JVMs and the collector, and per
  // setting the producer and consumer JVMs with the agent, the group join, topic creation and
  // deletion, and the wait for the last spans.
  static final long EMBEDDED_START_S = 45;
  static final long EXTERNAL_START_S = 10;
  static final long SETTING_OVERHEAD_S = 9;
  private static final long MIN_WARMUP_S = 2;
  private static final long MIN_MEASURE_S = 5;

  /** The number of settings the plan runs. */
  int settingCount() {
    return experiments.stream().mapToInt(e -> e.settings().size()).sum();
  }

  /** The number of runs: every setting as many times as the repeats. */
  int runCount() {
    return settingCount() * repeats;
  }

  /**
   * Seconds the plan expects the runs to take, without the start of the cluster: where the setting
   * is the consumer's, its consumer reads the unbounded run's records for up to as long again.
   */
  long expectedSeconds() {
    return expectedSeconds(experiments, repeats, warmupMs, measureMs, burstMs);
  }

  private static long expectedSeconds(
      List<Experiment> experiments, int repeats, long warmupMs, long measureMs, long burstMs) {
    long consumerRuns = 0;
    for (Experiment experiment : experiments) {
      consumerRuns +=
          experiment.settings().stream().filter(s -> !s.consumerConfig().isEmpty()).count();
    }
    return count(experiments)
            * repeats
            * (SETTING_OVERHEAD_S + (warmupMs + measureMs + burstMs) / 1000)
        + consumerRuns * repeats * burstMs / 1000;
  }

  /**
   * The smoke profile: the first and last value of each experiment, 2 s warm-up, 5 s windows, no
   * unbounded-rate run unless {@code throughputSeconds} asks for one.
   *
   * @param throughputSeconds {@code --throughput-seconds}, or null
   */
  static Plan quick(List<Experiment> chosen, int repeats, Integer throughputSeconds) {
    List<Experiment> kept = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (Experiment experiment : chosen) {
      List<Setting> settings = experiment.settings();
      List<Setting> ends = new ArrayList<>();
      ends.add(settings.get(0));
      if (settings.size() > 1) {
        ends.add(settings.get(settings.size() - 1));
      }
      for (Setting setting : settings.subList(1, Math.max(1, settings.size() - 1))) {
        skipped.add(experiment.name() + ": " + setting.label() + " (quick profile)");
      }
      kept.add(experiment.withSettings(ends));
    }
    long burstS = throughputSeconds == null ? 0 : throughputSeconds;
    if (burstS == 0) {
      skipped.add(
          "every unbounded-rate run ("
              + (throughputSeconds == null ? "quick profile" : "--throughput-seconds 0")
              + ")");
    }
    return new Plan(
        kept, MIN_WARMUP_S * 1000, MIN_MEASURE_S * 1000, burstS * 1000, repeats, skipped);
  }

  /**
   * Fits the chosen experiments, each setting run {@code repeats} times, into {@code budget}:
   * longer windows when it allows, then shorter ones, then no unbounded-rate run, then fewer values
   * (a middle value of the experiment with the most, so that each keeps its baseline and its
   * extreme), then fewer experiments. The repeats are kept: they are what the user asked to see.
   *
   * @param throughputSeconds {@code --throughput-seconds}: every run gets an unbounded-rate run of
   *     this length (none for 0) and the windows fit around it; null lets the budget decide
   */
  static Plan fit(
      List<Experiment> chosen,
      Duration budget,
      boolean embedded,
      int repeats,
      Integer throughputSeconds) {
    long available = budget.toSeconds() - (embedded ? EMBEDDED_START_S : EXTERNAL_START_S);
    List<Experiment> kept = new ArrayList<>(chosen);
    List<String> skipped = new ArrayList<>();
    long fixedBurst = throughputSeconds == null ? 0 : throughputSeconds;
    long minimum = SETTING_OVERHEAD_S + MIN_WARMUP_S + MIN_MEASURE_S + fixedBurst;
    while (count(kept) * repeats * minimum > available && !shrink(kept, skipped)) {
      // shrink() removed a value or an experiment; try again.
    }
    long perRun = available / Math.max(1, count(kept) * repeats);
    long warmup;
    long burst;
    long measure;
    if (throughputSeconds != null) {
      burst = throughputSeconds;
      long windows = perRun - SETTING_OVERHEAD_S - burst;
      warmup = windows >= 3 + 10 ? 3 : MIN_WARMUP_S;
      measure = Math.min(30, Math.max(MIN_MEASURE_S, windows - warmup));
      if (burst == 0) {
        skipped.add("every unbounded-rate run (--throughput-seconds 0)");
      }
    } else if (perRun >= SETTING_OVERHEAD_S + 3 + 10 + 3) {
      warmup = 3;
      burst = 3;
      measure = Math.min(30, perRun - SETTING_OVERHEAD_S - warmup - burst);
    } else if (perRun >= SETTING_OVERHEAD_S + MIN_WARMUP_S + MIN_MEASURE_S + 2) {
      warmup = MIN_WARMUP_S;
      burst = 2;
      measure = perRun - SETTING_OVERHEAD_S - warmup - burst;
    } else {
      warmup = MIN_WARMUP_S;
      burst = 0;
      measure = Math.max(MIN_MEASURE_S, perRun - SETTING_OVERHEAD_S - warmup);
      skipped.add("every unbounded-rate run (no time left in the budget for it)");
    }
    // The consumer's reading of the unbounded run comes out of the measured windows.
    long runs = Math.max(1, count(kept) * repeats);
    long over =
        expectedSeconds(kept, repeats, warmup * 1000, measure * 1000, burst * 1000) - available;
    if (over > 0) {
      measure = Math.max(MIN_MEASURE_S, measure - (over + runs - 1) / runs);
    }
    return new Plan(kept, warmup * 1000, measure * 1000, burst * 1000, repeats, skipped);
  }

  private static int count(List<Experiment> experiments) {
    return experiments.stream().mapToInt(e -> e.settings().size()).sum();
  }

  /** Removes one value or one experiment; true when nothing more can go. */
  private static boolean shrink(List<Experiment> kept, List<String> skipped) {
    int widest = -1;
    for (int i = 0; i < kept.size(); i++) {
      int size = kept.get(i).settings().size();
      if (size > 2 && (widest < 0 || size > kept.get(widest).settings().size())) {
        widest = i;
      }
    }
    if (widest >= 0) {
      Experiment experiment = kept.get(widest);
      List<Setting> settings = new ArrayList<>(experiment.settings());
      Setting dropped = settings.remove(settings.size() - 2);
      skipped.add(experiment.name() + ": " + dropped.label() + " (time budget)");
      kept.set(widest, experiment.withSettings(settings));
      return false;
    }
    if (kept.size() > 1) {
      Experiment dropped = kept.remove(kept.size() - 1);
      skipped.add("experiment " + dropped.name() + " (time budget)");
      return false;
    }
    return true;
  }
}
