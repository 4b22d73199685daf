package dev.klat.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * What the live table asks the collector at each refresh: the breakdown of the demo's topic and
 * group over the last 20 s, the top finding over the last 10 s (so that it follows a new scenario
 * sooner; at the demo's lowest rate 10 s still hold a few hundred records), and the demo pipeline
 * over the last 20 s. {@code out} is where to say the collector is not answering, unless the demo
 * is {@code stopping}.
 */
record LiveQueries(int adminPort, PrintStream out, BooleanSupplier stopping) {

  /** The breakdown, or null when the collector did not answer. */
  BreakdownRow breakdown() {
    String answer = fetch("/api/breakdown", "20s");
    return answer == null ? null : BreakdownRow.parse(DemoMain.TOPIC, DemoMain.GROUP, answer);
  }

  /**
   * The demo's kafkajs consumer's records over the last 20 s (those an OpenTelemetry
   * instrumentation reported), or null when the collector did not answer.
   */
  OpenTelemetryRow kafkajs() {
    String answer = fetch("/api/breakdown", DemoMain.NODE_GROUP, "20s");
    return answer == null ? null : OpenTelemetryRow.parse(answer);
  }

  /** The top finding, or null when there is none or the collector did not answer. */
  TopFinding topFinding() {
    String answer = fetch("/api/diagnosis", "10s");
    return answer == null ? null : TopFinding.parse(answer);
  }

  /**
   * The demo pipeline over the last 20 s, or null when the collector has none (no chain linked yet,
   * a collector without {@code /api/pipelines}) or did not answer.
   */
  PipelineRow pipeline() {
    try {
      String answer = AdminClient.get(adminPort, "/api/pipelines?window=20s");
      return answer == null ? null : PipelineRow.parse(DemoMain.TOPIC, Scenario.LAST_GROUP, answer);
    } catch (IOException | RuntimeException e) {
      if (!stopping.getAsBoolean()) {
        out.println("collector not answering: " + e);
      }
      return null;
    }
  }

  private String fetch(String endpoint, String window) {
    return fetch(endpoint, DemoMain.GROUP, window);
  }

  private String fetch(String endpoint, String group, String window) {
    try {
      return AdminClient.get(
          adminPort,
          endpoint
              + "?topic="
              + URLEncoder.encode(DemoMain.TOPIC, StandardCharsets.UTF_8)
              + "&group="
              + URLEncoder.encode(group, StandardCharsets.UTF_8)
              + "&window="
              + window);
    } catch (IOException | RuntimeException e) {
      if (!stopping.getAsBoolean()) {
        out.println("collector not answering: " + e);
      }
      return null;
    }
  }
}
