package dev.klat.demo;

import java.util.Locale;
import java.util.Map;

/**
 * What the demo prints while a scenario runs: one log line per refresh, and on a terminal the
 * screen it redraws (the live table of the topic's end-to-end quantiles and the segment driving its
 * p99 tail).
 */
final class LiveTable {
  private LiveTable() {}

  /**
   * One refresh as a log line.
   *
   * @param scenario the scenario running
   * @param index its place in the order, from 0
   * @param scenarios how many scenarios run
   * @param secondsLeft until the next scenario
   * @param elapsedSeconds since the demo started
   * @param row the collector's breakdown of the last 20 s, or null when it did not answer
   * @param why the collector's top finding over the last 10 s, or null when it has none
   */
  static String line(
      Scenario scenario,
      int index,
      int scenarios,
      long secondsLeft,
      long elapsedSeconds,
      BreakdownRow row,
      TopFinding why) {
    String expected = scenario.expectedSegment == null ? "-" : scenario.expectedSegment;
    String driver = row == null ? null : row.drivingSegment();
    String line =
        String.format(
            Locale.ROOT,
            "[%4ds] scenario=%s (%d/%d, %ds left) expect=%s | %s/%s n=%d p50=%s p99=%s p99.9=%s"
                + " driver=%s %s why=%s",
            elapsedSeconds,
            scenario.id,
            index + 1,
            scenarios,
            secondsLeft,
            expected,
            DemoMain.TOPIC,
            DemoMain.GROUP,
            row == null ? 0 : row.count,
            row == null ? "-" : BreakdownRow.millis(row.p50Seconds),
            row == null ? "-" : BreakdownRow.millis(row.p99Seconds),
            row == null ? "-" : BreakdownRow.millis(row.p999Seconds),
            driver == null ? "-" : driver,
            driver == null ? "" : Math.round(row.drivingShare() * 100) + "%",
            why == null ? "-" : why.token() + why.recordsToken());
    if (row != null && row.count > 0) {
      StringBuilder means = new StringBuilder(" | tail means:");
      for (Map.Entry<String, Double> mean : row.knownSegments().entrySet()) {
        means
            .append(' ')
            .append(mean.getKey())
            .append('=')
            .append(BreakdownRow.millis(mean.getValue()).replace(" ", ""));
      }
      line += means;
    }
    return line;
  }

  /**
   * The demo pipeline at one refresh, as a log line: the scenario as {@link #line} writes it, then
   * the pipeline's end-to-end quantiles and where its p99 tail is.
   *
   * @param pipeline the collector's pipeline over the last 20 s, never null
   */
  static String pipelineLine(
      Scenario scenario,
      int index,
      int scenarios,
      long secondsLeft,
      long elapsedSeconds,
      PipelineRow pipeline) {
    return String.format(
        Locale.ROOT,
        "[%4ds] scenario=%s (%d/%d, %ds left) %s",
        elapsedSeconds,
        scenario.id,
        index + 1,
        scenarios,
        secondsLeft,
        pipeline.token());
  }

  /**
   * The demo's kafkajs consumer at one refresh, as a log line: the scenario as {@link #line} writes
   * it, then the records an OpenTelemetry instrumentation reported (docs/clients.md).
   *
   * @param kafkajs the collector's figures for the kafkajs consumer's group over the last 20 s
   */
  static String kafkajsLine(
      Scenario scenario,
      int index,
      int scenarios,
      long secondsLeft,
      long elapsedSeconds,
      OpenTelemetryRow kafkajs) {
    return String.format(
        Locale.ROOT,
        "[%4ds] scenario=%s (%d/%d, %ds left) %s",
        elapsedSeconds,
        scenario.id,
        index + 1,
        scenarios,
        secondsLeft,
        kafkajs.token(DemoMain.TOPIC, DemoMain.NODE_GROUP));
  }

  /**
   * The screen a terminal shows, cleared and redrawn at each refresh, ending with {@code line}.
   *
   * @param pipeline the demo pipeline over the last 20 s, or null when the collector has none
   * @param adminPort the collector's admin port, where the live charts are
   */
  static String screen(
      Scenario scenario,
      int index,
      int scenarios,
      long secondsLeft,
      BreakdownRow row,
      TopFinding why,
      PipelineRow pipeline,
      int adminPort,
      String line) {
    String expected = scenario.expectedSegment == null ? "-" : scenario.expectedSegment;
    String driver = row == null ? null : row.drivingSegment();
    StringBuilder screen = new StringBuilder("\033[H\033[2J");
    screen
        .append("klat demo   scenario ")
        .append(index + 1)
        .append('/')
        .append(scenarios)
        .append(": ")
        .append(scenario.description)
        .append("   next in ")
        .append(secondsLeft)
        .append(" s\n\n");
    screen.append(
        String.format(
            Locale.ROOT,
            "%-12s %-9s %7s %9s %9s %9s   %s%n",
            "topic",
            "group",
            "records",
            "e2e p50",
            "p99",
            "p99.9",
            "p99 tail driven by (mean per segment)"));
    if (row == null || row.count == 0) {
      screen.append("(waiting for the first joined breakdowns)\n");
    } else {
      StringBuilder segments = new StringBuilder();
      for (Map.Entry<String, Double> mean : row.knownSegments().entrySet()) {
        segments
            .append(segments.length() == 0 ? "" : ", ")
            .append(mean.getKey())
            .append(' ')
            .append(BreakdownRow.millis(mean.getValue()));
      }
      screen.append(
          String.format(
              Locale.ROOT,
              "%-12s %-9s %7d %9s %9s %9s   %s %d%% (%s)%n",
              DemoMain.TOPIC,
              DemoMain.GROUP,
              row.count,
              BreakdownRow.millis(row.p50Seconds),
              BreakdownRow.millis(row.p99Seconds),
              BreakdownRow.millis(row.p999Seconds),
              driver,
              Math.round(row.drivingShare() * 100),
              segments));
    }
    screen
        .append("\nwhy (last 10 s): ")
        .append(why == null ? "no finding explains the tail" : why.describe());
    screen
        .append("\npipeline (last 20 s): ")
        .append(
            pipeline == null
                ? "none found yet (a link needs a sampled record the enricher produced while"
                    + " processing one it consumed)"
                : pipeline.describe());
    screen.append("\nexpected driver for this scenario: ").append(expected);
    if (scenario.expectedPipelineTail != null) {
      screen.append("; expected pipeline tail: ").append(scenario.expectedPipelineTail);
    }
    screen
        .append("\nover the last 20 s; live charts: http://127.0.0.1:")
        .append(adminPort)
        .append("/\n");
    screen.append(line).append('\n');
    return screen.toString();
  }
}
