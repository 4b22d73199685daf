package dev.klat.dashboards;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What each panel plugin's schema in Grafana 11.3 (its panelcfg kind, published in
 * {@code @grafana/schema}) requires in a panel's {@code options} and {@code
 * fieldConfig.defaults.custom}. Grafana fills in what a dashboard leaves out when it loads the
 * panel, but its schema marks these fields required, so the generator writes them, with Grafana's
 * own defaults wherever klat has no preference. {@code GrafanaSchemaTest} checks the result.
 */
final class PanelPlugins {
  private PanelPlugins() {}

  /** A fresh {@code options} object for a panel of {@code type}. */
  static ObjectNode options(String type) {
    ObjectNode options = DashboardBuilder.JSON.createObjectNode();
    switch (type) {
      case "timeseries" -> {
        ObjectNode tooltip = options.putObject("tooltip");
        tooltip.put("mode", "multi");
        tooltip.put("sort", "desc");
        ObjectNode legend = options.putObject("legend");
        legend.put("displayMode", "table");
        legend.put("placement", "bottom");
        legend.putArray("calcs").add("lastNotNull").add("max");
        legend.put("showLegend", true);
      }
      case "stat" -> {
        singleStat(options);
        options.put("textMode", "auto");
        options.put("colorMode", "value");
        options.put("graphMode", "area");
        options.put("justifyMode", "auto");
        options.put("wideLayout", true);
        options.put("showPercentChange", false);
        options.put("percentChangeColorMode", "standard");
      }
      case "bargauge" -> {
        singleStat(options);
        // The bars carry the series names; a legend would repeat them.
        ObjectNode legend = options.putObject("legend");
        legend.put("displayMode", "list");
        legend.put("placement", "bottom");
        legend.putArray("calcs");
        legend.put("showLegend", false);
        options.put("displayMode", "gradient");
        options.put("valueMode", "color");
        options.put("namePlacement", "auto");
        options.put("showUnfilled", true);
        options.put("sizing", "auto");
        options.put("minVizWidth", 8);
        options.put("minVizHeight", 16);
        options.put("maxVizHeight", 300);
      }
      case "table" -> {
        options.put("showHeader", true);
        options.put("frameIndex", 0);
      }
      default -> throw new IllegalArgumentException("no schema defaults for panel type " + type);
    }
    return options;
  }

  /**
   * Adds the plugin's {@code custom} field config to {@code defaults} and returns it, or returns
   * null for plugins whose schema declares none (stat, bar gauge): there {@code custom} must be
   * absent.
   */
  static ObjectNode custom(String type, ObjectNode defaults) {
    return switch (type) {
      case "timeseries" -> defaults.putObject("custom");
      case "table" -> {
        ObjectNode custom = defaults.putObject("custom");
        custom.put("align", "auto");
        custom.putObject("cellOptions").put("type", "auto");
        custom.put("inspect", false);
        yield custom;
      }
      default -> null;
    };
  }

  /** The options stat and bar gauge share: one value per series, its last. */
  private static void singleStat(ObjectNode options) {
    ObjectNode reduce = options.putObject("reduceOptions");
    reduce.putArray("calcs").add("lastNotNull");
    reduce.put("values", false);
    options.put("orientation", "auto");
  }
}
