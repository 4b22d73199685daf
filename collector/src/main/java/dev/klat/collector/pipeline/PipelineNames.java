package dev.klat.collector.pipeline;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The names {@code pipeline.names} gives pipelines: a comma list of {@code
 * name=firstTopic/lastGroup}. A pipeline it does not name is called {@code firstTopic->lastGroup}.
 * Immutable.
 */
public final class PipelineNames {
  /** No names given. */
  public static final PipelineNames NONE = new PipelineNames(Map.of());

  /** The longest name accepted: a name is a metric label. */
  static final int MAX_NAME_CHARS = 255;

  private final Map<List<String>, String> names;

  private PipelineNames(Map<List<String>, String> names) {
    this.names = Map.copyOf(names);
  }

  /**
   * Parses {@code name=firstTopic/lastGroup,...}; empty text names nothing.
   *
   * @throws IllegalArgumentException naming the entry that is not of that form
   */
  public static PipelineNames parse(String text) {
    Map<List<String>, String> names = new HashMap<>();
    if (text == null || text.isBlank()) {
      return NONE;
    }
    for (String entry : text.split(",")) {
      String e = entry.trim();
      int eq = e.indexOf('=');
      int slash = e.indexOf('/', eq + 1);
      if (eq <= 0 || slash <= eq + 1 || slash == e.length() - 1) {
        throw new IllegalArgumentException(
            "pipeline.names entry \"" + e + "\" is not name=firstTopic/lastGroup");
      }
      String name = e.substring(0, eq).trim();
      if (name.length() > MAX_NAME_CHARS) {
        throw new IllegalArgumentException(
            "pipeline.names name of " + name.length() + " characters (at most 255)");
      }
      List<String> key = List.of(e.substring(eq + 1, slash).trim(), e.substring(slash + 1).trim());
      if (names.put(key, name) != null) {
        throw new IllegalArgumentException(
            "pipeline.names names " + key.get(0) + "/" + key.get(1) + " twice");
      }
    }
    return new PipelineNames(names);
  }

  /** The name of the pipeline from {@code firstTopic} to {@code lastGroup}. */
  public String name(String firstTopic, String lastGroup) {
    String named = names.get(List.of(firstTopic, lastGroup));
    return named != null ? named : firstTopic + "->" + lastGroup;
  }

  /** Whether the operator named that pipeline. */
  boolean named(String firstTopic, String lastGroup) {
    return names.containsKey(List.of(firstTopic, lastGroup));
  }
}
