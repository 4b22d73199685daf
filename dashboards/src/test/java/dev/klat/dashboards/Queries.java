package dev.klat.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Every query of the committed dashboards and rules, read back from the files users get. */
final class Queries {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One query and where it is.
   *
   * @param where file and panel or rule, for messages
   * @param language {@code promql} or {@code traceql}
   * @param expr the query text
   * @param kind {@code panel}, {@code variable}, {@code record} or {@code alert}
   */
  record Query(String where, String language, String expr, String kind) {
    boolean promQl() {
      return language.equals("promql");
    }
  }

  private Queries() {}

  static List<Path> dashboardFiles() {
    return list(Repo.path("dashboards/grafana"), ".json");
  }

  static List<Path> ruleFiles() {
    return list(Repo.path("dashboards/prometheus"), ".yml");
  }

  static List<Query> all() {
    List<Query> out = new ArrayList<>(dashboards());
    out.addAll(rules());
    return out;
  }

  static List<Query> dashboards() {
    List<Query> out = new ArrayList<>();
    for (Path file : dashboardFiles()) {
      JsonNode d = read(JSON, file);
      for (JsonNode v : d.path("templating").path("list")) {
        out.add(
            new Query(
                file.getFileName() + " variable " + v.path("name").asText(),
                "promql",
                v.path("query").path("query").asText(),
                "variable"));
      }
      for (JsonNode p : d.path("panels")) {
        for (JsonNode t : p.path("targets")) {
          boolean traceQl = t.path("queryType").asText().equals("traceql");
          out.add(
              new Query(
                  file.getFileName()
                      + " panel '"
                      + p.path("title").asText()
                      + "' "
                      + t.path("refId").asText(),
                  traceQl ? "traceql" : "promql",
                  traceQl ? t.path("query").asText() : t.path("expr").asText(),
                  "panel"));
        }
      }
    }
    return out;
  }

  static List<Query> rules() {
    List<Query> out = new ArrayList<>();
    for (Path file : ruleFiles()) {
      for (JsonNode group : read(YAML, file).path("groups")) {
        for (JsonNode rule : group.path("rules")) {
          boolean record = rule.has("record");
          out.add(
              new Query(
                  file.getFileName()
                      + " "
                      + (record ? rule.path("record") : rule.path("alert")).asText(),
                  "promql",
                  rule.path("expr").asText(),
                  record ? "record" : "alert"));
        }
      }
    }
    return out;
  }

  /** The names the recording rules define. */
  static List<String> recordedNames() {
    List<String> out = new ArrayList<>();
    for (Path file : ruleFiles()) {
      for (JsonNode group : read(YAML, file).path("groups")) {
        for (JsonNode rule : group.path("rules")) {
          if (rule.has("record")) {
            out.add(rule.path("record").asText());
          }
        }
      }
    }
    return out;
  }

  static JsonNode read(ObjectMapper mapper, Path file) {
    try {
      return mapper.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot parse " + file, e);
    }
  }

  private static List<Path> list(Path dir, String suffix) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(suffix)).sorted().collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
