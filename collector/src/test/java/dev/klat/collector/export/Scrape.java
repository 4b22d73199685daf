package dev.klat.collector.export;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser of the Prometheus text and OpenMetrics formats, enough to check what the
 * collector writes: every line must be a comment it knows, or a sample with well-formed labels, a
 * number, and in OpenMetrics an optional exemplar.
 */
public final class Scrape {
  /** One sample line. */
  public record Sample(
      String name,
      Map<String, String> labels,
      double value,
      Map<String, String> exemplarLabels,
      double exemplarValue) {}

  public final List<Sample> samples = new ArrayList<>();
  public final Map<String, String> types = new LinkedHashMap<>();
  public final Map<String, String> units = new LinkedHashMap<>();
  public boolean eof;

  public static Scrape parse(String text, boolean openMetrics) {
    Scrape s = new Scrape();
    String[] lines = text.split("\n", -1);
    if (!lines[lines.length - 1].isEmpty()) {
      throw new IllegalArgumentException("exposition must end with a newline");
    }
    for (int i = 0; i < lines.length - 1; i++) {
      String line = lines[i];
      if (s.eof) {
        throw new IllegalArgumentException("content after # EOF");
      }
      if (line.equals("# EOF")) {
        s.eof = true;
      } else if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        if (parts.length != 4 || s.types.put(parts[2], parts[3]) != null) {
          throw new IllegalArgumentException("bad or repeated TYPE: " + line);
        }
      } else if (line.startsWith("# UNIT ")) {
        String[] parts = line.split(" ");
        if (!openMetrics || !parts[2].endsWith("_" + parts[3])) {
          throw new IllegalArgumentException("bad UNIT: " + line);
        }
        s.units.put(parts[2], parts[3]);
      } else if (line.startsWith("# HELP ")) {
        continue;
      } else if (line.startsWith("#") || line.isEmpty()) {
        throw new IllegalArgumentException("unexpected line: " + line);
      } else {
        s.samples.add(sample(line, openMetrics));
      }
    }
    if (openMetrics && !s.eof) {
      throw new IllegalArgumentException("OpenMetrics without # EOF");
    }
    return s;
  }

  private static Sample sample(String line, boolean openMetrics) {
    int[] pos = {0};
    String name = name(line, pos);
    Map<String, String> labels = line.charAt(pos[0]) == '{' ? labels(line, pos) : Map.of();
    expect(line, pos, ' ');
    int end = line.indexOf(' ', pos[0]);
    String value = end < 0 ? line.substring(pos[0]) : line.substring(pos[0], end);
    double v = number(value);
    Map<String, String> exemplar = null;
    double exemplarValue = Double.NaN;
    if (end >= 0) {
      pos[0] = end;
      String rest = line.substring(end);
      if (!openMetrics || !rest.startsWith(" # {")) {
        throw new IllegalArgumentException("unexpected after value: " + line);
      }
      pos[0] = end + 3;
      exemplar = labels(line, pos);
      expect(line, pos, ' ');
      String[] parts = line.substring(pos[0]).split(" ");
      exemplarValue = number(parts[0]);
      if (parts.length > 2) {
        throw new IllegalArgumentException("bad exemplar: " + line);
      }
      if (parts.length == 2) {
        number(parts[1]);
      }
    }
    return new Sample(name, labels, v, exemplar, exemplarValue);
  }

  private static String name(String line, int[] pos) {
    int start = pos[0];
    while (pos[0] < line.length()) {
      char c = line.charAt(pos[0]);
      boolean ok =
          Character.isLetter(c) || c == '_' || c == ':' || (pos[0] > start && Character.isDigit(c));
      if (!ok) {
        break;
      }
      pos[0]++;
    }
    if (pos[0] == start) {
      throw new IllegalArgumentException("no name: " + line);
    }
    return line.substring(start, pos[0]);
  }

  private static Map<String, String> labels(String line, int[] pos) {
    Map<String, String> out = new LinkedHashMap<>();
    expect(line, pos, '{');
    while (line.charAt(pos[0]) != '}') {
      String key = name(line, pos);
      expect(line, pos, '=');
      expect(line, pos, '"');
      StringBuilder v = new StringBuilder();
      while (line.charAt(pos[0]) != '"') {
        char c = line.charAt(pos[0]++);
        if (c == '\\') {
          char e = line.charAt(pos[0]++);
          v.append(e == 'n' ? '\n' : e);
        } else {
          v.append(c);
        }
      }
      pos[0]++;
      if (out.put(key, v.toString()) != null) {
        throw new IllegalArgumentException("repeated label " + key + ": " + line);
      }
      if (line.charAt(pos[0]) == ',') {
        pos[0]++;
      }
    }
    pos[0]++;
    return out;
  }

  private static void expect(String line, int[] pos, char c) {
    if (pos[0] >= line.length() || line.charAt(pos[0]) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + pos[0] + ": " + line);
    }
    pos[0]++;
  }

  private static double number(String s) {
    return switch (s) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(s);
    };
  }

  /** The samples with a name. */
  public List<Sample> named(String name) {
    return samples.stream().filter(x -> x.name().equals(name)).toList();
  }
}
