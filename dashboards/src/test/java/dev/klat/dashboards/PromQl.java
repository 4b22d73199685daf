package dev.klat.dashboards;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Just enough PromQL reading to find the metric names an expression selects. It drops what cannot
 * hold a metric name (strings, label matchers, range and subquery brackets, grouping label lists,
 * Grafana variables), then keeps every identifier that is not a function call or a keyword.
 */
final class PromQl {
  private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'");
  private static final Pattern BRACES = Pattern.compile("\\{[^}]*\\}");
  private static final Pattern BRACKETS = Pattern.compile("\\[[^\\]]*\\]");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern GRAFANA_VARIABLE = Pattern.compile("\\$\\{?\\w+\\}?");
  // Grafana's variable query label_values(selector, label): the label is not a metric.
  private static final Pattern LABEL_VALUES =
      Pattern.compile("^\\s*label_values\\((.*),\\s*\\w+\\s*\\)\\s*$", Pattern.DOTALL);
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w.])([a-zA-Z_:][a-zA-Z0-9_:]*+)(?!\\s*\\()");
  private static final Set<String> KEYWORDS =
      Set.of(
          "and",
          "or",
          "unless",
          "bool",
          "offset",
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "inf",
          "nan",
          "Inf",
          "NaN",
          "atan2");

  private PromQl() {}

  /** Returns the metric names {@code expr} selects, in order of appearance. */
  static Set<String> metricNames(String expr) {
    Matcher labelValues = LABEL_VALUES.matcher(expr);
    String s = labelValues.matches() ? labelValues.group(1) : expr;
    s = STRING.matcher(s).replaceAll("\"\"");
    s = BRACES.matcher(s).replaceAll("");
    s = BRACKETS.matcher(s).replaceAll("");
    s = GROUPING.matcher(s).replaceAll("");
    s = GRAFANA_VARIABLE.matcher(s).replaceAll("");
    Set<String> out = new LinkedHashSet<>();
    Matcher m = IDENTIFIER.matcher(s);
    while (m.find()) {
      if (!KEYWORDS.contains(m.group(1))) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /**
   * Replaces Grafana's variables by what they mean with every topic, group and pipeline selected,
   * so that Prometheus itself can evaluate a panel's query.
   */
  static String withGrafanaVariables(String expr, String rateInterval) {
    Matcher labelValues = LABEL_VALUES.matcher(expr);
    String s = labelValues.matches() ? labelValues.group(1) : expr;
    return s.replace("$__rate_interval", rateInterval)
        .replace("\"$topic\"", "\".*\"")
        .replace("\"$group\"", "\".*\"")
        .replace("\"$pipeline\"", "\".*\"");
  }
}
