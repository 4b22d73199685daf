package dev.klat.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Builds one Grafana dashboard (schema version 39) as a JSON tree. Panels flow left to right in a
 * 24-column grid; a panel that does not fit starts the next row. Only what klat's dashboards need.
 */
final class DashboardBuilder {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final int GRID_COLUMNS = 24;

  private final ObjectNode root = JSON.createObjectNode();
  private final ArrayNode panels;
  private final ArrayNode variables;
  private int nextPanelId = 1;
  private int x;
  private int y;
  private int rowHeight;

  DashboardBuilder(String uid, String title, String description) {
    root.put("uid", uid);
    root.put("title", title);
    root.put("description", description);
    root.putArray("tags").add("klat");
    root.put("timezone", "browser");
    root.put("editable", true);
    root.put("schemaVersion", 39);
    root.put("refresh", "10s");
    ObjectNode time = root.putObject("time");
    time.put("from", "now-30m");
    time.put("to", "now");
    ObjectNode links = root.putArray("links").addObject();
    links.put("type", "dashboards");
    links.putArray("tags").add("klat");
    links.put("asDropdown", false);
    links.put("title", "klat");
    // Required by Grafana's schema; Grafana's defaults.
    links.put("icon", "external link");
    links.put("tooltip", "");
    links.put("includeVars", false);
    links.put("keepTime", false);
    links.put("targetBlank", false);
    variables = root.putObject("templating").putArray("list");
    panels = root.putArray("panels");
  }

  /** Adds the topic and consumer group variables, read from the end-to-end histogram. */
  DashboardBuilder topicAndGroupVariables() {
    variable("topic", "label_values(" + Config.E2E + "_count, topic)");
    variable("group", "label_values(" + Config.E2E + "_count{topic=~\"$topic\"}, group)");
    return this;
  }

  /** Adds the pipeline variable, read from the pipelines' end-to-end histogram. */
  DashboardBuilder pipelineVariable() {
    variable("pipeline", "label_values(" + Config.PIPELINE + "_count, pipeline)");
    return this;
  }

  private void variable(String name, String query) {
    ObjectNode v = variables.addObject();
    v.put("type", "query");
    v.put("name", name);
    v.put("label", name);
    v.set("datasource", prometheus());
    ObjectNode q = v.putObject("query");
    q.put("query", query);
    q.put("refId", "PrometheusVariableQueryEditor-VariableQuery");
    // No "definition" (the query as text, which Grafana's editor also saves): Grafana's schema has
    // no such field, and Grafana shows the query without it.
    // On dashboard load and on time range change, so that new topics appear.
    v.put("refresh", 2);
    v.put("includeAll", true);
    v.put("multi", true);
    // Grafana's "All" as a regex, so that series whose label is missing still match.
    v.put("allValue", ".*");
    ObjectNode current = v.putObject("current");
    current.putArray("text").add("All");
    current.putArray("value").add("$__all");
    v.put("sort", 1);
  }

  /** Starts a new row of panels with a collapsible-free section title. */
  DashboardBuilder row(String title) {
    newLine();
    ObjectNode row = panels.addObject();
    row.put("id", nextPanelId++);
    row.put("type", "row");
    row.put("title", title);
    row.put("collapsed", false);
    row.set("gridPos", gridPos(0, y, GRID_COLUMNS, 1));
    row.putArray("panels");
    y += 1;
    return this;
  }

  /** Adds a panel of the given width and height and returns it for the caller to fill. */
  Panel panel(String type, String title, String description, int width, int height) {
    if (x + width > GRID_COLUMNS) {
      newLine();
    }
    ObjectNode p = panels.addObject();
    p.put("id", nextPanelId++);
    p.put("type", type);
    p.put("title", title);
    p.put("description", description);
    p.set("gridPos", gridPos(x, y, width, height));
    x += width;
    rowHeight = Math.max(rowHeight, height);
    return new Panel(p, type);
  }

  private void newLine() {
    if (x > 0) {
      y += rowHeight;
    }
    x = 0;
    rowHeight = 0;
  }

  JsonNode build() {
    return root;
  }

  static ObjectNode prometheus() {
    ObjectNode ds = JSON.createObjectNode();
    ds.put("type", "prometheus");
    ds.put("uid", Config.PROMETHEUS_UID);
    return ds;
  }

  static ObjectNode tempo() {
    ObjectNode ds = JSON.createObjectNode();
    ds.put("type", "tempo");
    ds.put("uid", Config.TEMPO_UID);
    return ds;
  }

  private static ObjectNode gridPos(int x, int y, int w, int h) {
    ObjectNode g = JSON.createObjectNode();
    g.put("h", h);
    g.put("w", w);
    g.put("x", x);
    g.put("y", y);
    return g;
  }

  /** One panel under construction. */
  static final class Panel {
    private final ObjectNode node;
    private final String type;
    private final ObjectNode defaults;
    // Null for plugins whose schema has no custom field config (stat, bar gauge).
    private final ObjectNode custom;
    private final ArrayNode targets;
    private char nextRefId = 'A';

    Panel(ObjectNode node, String type) {
      this.node = node;
      this.type = type;
      ObjectNode fieldConfig = node.putObject("fieldConfig");
      defaults = fieldConfig.putObject("defaults");
      custom = PanelPlugins.custom(type, defaults);
      fieldConfig.putArray("overrides");
      targets = node.putArray("targets");
      node.set("datasource", prometheus());
      node.set("options", PanelPlugins.options(type));
    }

    /** The time series field config; fails fast for a plugin that has none. */
    private ObjectNode graph() {
      if (!type.equals("timeseries")) {
        throw new IllegalStateException(type + " panels have no line, bar or stacking options");
      }
      return custom;
    }

    /** A PromQL query; {@code exemplars} asks Grafana for the exemplars of the series it reads. */
    Panel query(String expr, String legend, boolean exemplars) {
      ObjectNode t = targets.addObject();
      t.set("datasource", prometheus());
      t.put("refId", String.valueOf(nextRefId++));
      t.put("expr", expr);
      t.put("legendFormat", legend);
      t.put("range", true);
      t.put("exemplar", exemplars);
      return this;
    }

    /** An instant PromQL query, for stat and bar gauge panels: one value per series. */
    Panel instantQuery(String expr, String legend) {
      ObjectNode t = targets.addObject();
      t.set("datasource", prometheus());
      t.put("refId", String.valueOf(nextRefId++));
      t.put("expr", expr);
      t.put("legendFormat", legend);
      t.put("instant", true);
      t.put("range", false);
      t.put("format", "time_series");
      return this;
    }

    /** A TraceQL search on Tempo, shown as a table of traces. */
    Panel traceQl(String query, int limit) {
      node.set("datasource", tempo());
      ObjectNode t = targets.addObject();
      t.set("datasource", tempo());
      t.put("refId", String.valueOf(nextRefId++));
      t.put("queryType", "traceql");
      t.put("query", query);
      t.put("limit", limit);
      t.put("tableType", "traces");
      // The search builder's filters, required by Tempo's query schema; the TraceQL query is
      // enough.
      t.putArray("filters");
      return this;
    }

    Panel unit(String unit) {
      defaults.put("unit", unit);
      return this;
    }

    Panel max(double max) {
      defaults.put("max", max);
      return this;
    }

    Panel min(double min) {
      defaults.put("min", min);
      return this;
    }

    /** Stacks the series; {@code percent} stacks them to 100%. */
    Panel stacked(boolean percent) {
      ObjectNode custom = graph();
      custom.putObject("stacking").put("mode", percent ? "percent" : "normal");
      custom.put("fillOpacity", 60);
      custom.put("lineWidth", 1);
      return this;
    }

    Panel bars() {
      ObjectNode custom = graph();
      custom.put("drawStyle", "bars");
      custom.put("fillOpacity", 80);
      return this;
    }

    /** A red line at {@code value}: the SLO threshold on latency panels. */
    Panel threshold(double value) {
      ObjectNode thresholds = defaults.putObject("thresholds");
      thresholds.put("mode", "absolute");
      ArrayNode steps = thresholds.putArray("steps");
      ObjectNode base = steps.addObject();
      base.put("color", "green");
      base.putNull("value");
      ObjectNode red = steps.addObject();
      red.put("color", "red");
      red.put("value", value);
      graph().putObject("thresholdsStyle").put("mode", "line+area");
      return this;
    }

    /** Sorts a table panel by a column, largest first. */
    Panel sortedBy(String field) {
      ObjectNode sort = node.putArray("transformations").addObject();
      sort.put("id", "sortBy");
      ObjectNode by = sort.putObject("options").putArray("sort").addObject();
      by.put("field", field);
      by.put("desc", true);
      return this;
    }

    /** Options of a stat panel: the value and the series name, colored by threshold. */
    Panel statShowsName() {
      if (!type.equals("stat")) {
        throw new IllegalStateException("statShowsName() on a " + type + " panel");
      }
      ObjectNode options = (ObjectNode) node.get("options");
      options.put("textMode", "value_and_name");
      options.put("colorMode", "background");
      options.put("graphMode", "none");
      return this;
    }
  }
}
