package dev.klat.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names the broker JMX exporter rules ({@code deploy/jmx-exporter/kafka-broker.yaml})
 * can produce, as one pattern per rule: each {@code $n} of the rule's {@code name} becomes the
 * alternatives of the pattern's n-th group, lowercased as the rules' {@code lowercaseOutputName}
 * asks.
 */
final class JmxExporterNames {
  private static final Pattern GROUP = Pattern.compile("\\(([^()]*)\\)");
  private final List<Pattern> names = new ArrayList<>();

  JmxExporterNames(Path rulesFile) {
    JsonNode rules = Queries.read(Queries.YAML, rulesFile);
    boolean lowercase = rules.path("lowercaseOutputName").asBoolean(false);
    for (JsonNode rule : rules.path("rules")) {
      List<String> groups = new ArrayList<>();
      Matcher g = GROUP.matcher(rule.path("pattern").asText());
      while (g.find()) {
        String alternatives = g.group(1);
        groups.add(
            alternatives.matches("[A-Za-z0-9_|]+")
                ? "(?:" + (lowercase ? alternatives.toLowerCase(Locale.ROOT) : alternatives) + ")"
                : "[a-z0-9_]+");
      }
      String name = rule.path("name").asText();
      StringBuilder regex = new StringBuilder();
      Matcher ref = Pattern.compile("\\$(\\d+)").matcher(name);
      int last = 0;
      while (ref.find()) {
        regex.append(Pattern.quote(name.substring(last, ref.start())));
        regex.append(groups.get(Integer.parseInt(ref.group(1)) - 1));
        last = ref.end();
      }
      regex.append(Pattern.quote(name.substring(last)));
      names.add(Pattern.compile(regex.toString()));
    }
  }

  boolean defines(String metricName) {
    return names.stream().anyMatch(p -> p.matcher(metricName).matches());
  }

  int ruleCount() {
    return names.size();
  }
}
