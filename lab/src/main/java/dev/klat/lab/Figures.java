package dev.klat.lab;

/**
 * The figures the findings compare: one run's ({@link Result}) or the medians of a setting's runs
 * ({@link SettingRuns}).
 */
interface Figures {

  Setting setting();

  /** The p99 tail's mean of {@code segment} in milliseconds, or null when not known. */
  Double tailMs(String segment);

  /** The median of {@code segment} over the window in milliseconds, or null when not known. */
  Double p50Ms(String segment);

  /** End-to-end p99 in milliseconds, or null. */
  Double p99Ms();

  /** Records per second of the unbounded-rate run, or null when there was none. */
  Double burstRecordsPerSecond();

  long breakdowns();

  /** Why it failed, or null. */
  String error();
}
