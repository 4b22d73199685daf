package dev.klat.testsupport;

import dev.klat.model.SettingDef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What the doc tests of klat's three settings tables (the agent's {@code ConfigKey}, the broker
 * probe's {@code ProbeKey}, the collector's {@code CollectorKey}) check alike: the naming rule of
 * docs/configuration.md ("Naming"), that no two settings share an environment variable, and that
 * the documentation has one row per setting with its environment variable, type and default, and
 * one row per renamed setting with its old spellings. Each method returns the problems it finds,
 * all of them, so that a test shows every mistake at once.
 */
public final class SettingTableCheck {

  private static final Pattern SEGMENT = Pattern.compile("[a-z][a-z0-9]*");
  private static final Pattern LAST_SEGMENT = Pattern.compile("[a-z][a-z0-9]*(-[a-z0-9]+)*");
  private static final Pattern CELL_SEPARATOR = Pattern.compile("(?<!\\\\)\\|");

  private SettingTableCheck() {}

  /**
   * One setting as its table declares it.
   *
   * @param key the key, for example {@code klat.export.queue-size} or {@code otlp.max-body-bytes}
   * @param envName its environment variable
   * @param type how the table writes its type, for example {@code integer > 0}
   * @param defaultValue the default as a user would write it, empty for an empty default, null when
   *     it has none or it is computed
   * @param oldKeys the old spellings still read
   * @param oldEnvNames the environment variables of the old spellings
   */
  public record Setting(
      String key,
      String envName,
      String type,
      String defaultValue,
      List<String> oldKeys,
      List<String> oldEnvNames) {}

  /**
   * The settings of a table enum ({@code ConfigKey}, {@code ProbeKey}, {@code CollectorKey}), read
   * from the {@link SettingDef} each constant holds in its field {@code setting}. By reflection,
   * since the enums are package-private in three modules that share no type but {@code model/}'s.
   */
  public static List<Setting> table(Enum<?>[] values) {
    List<Setting> table = new ArrayList<>();
    for (Enum<?> value : values) {
      SettingDef setting = setting(value);
      table.add(
          new Setting(
              setting.key(),
              setting.envName(),
              String.valueOf(setting.type()),
              setting.defaultValue(),
              List.of(setting.oldKeys()),
              List.of(setting.oldEnvNames())));
    }
    return table;
  }

  /**
   * Every problem of a settings table, all at once: keys against the naming rule ({@link
   * #namingProblems}), shared environment variables ({@link #envNameCollisions}), the rows of the
   * documentation ({@link #docProblems}), and defaults that are not values of their own type.
   *
   * @param values the table enum's constants, each holding its {@link SettingDef} in {@code
   *     setting}
   * @param prefixLevels as for {@link #namingProblems}
   * @param envPrefix as for {@link #namingProblems}
   * @param docs the documents whose tables list the settings, relative to the repository
   */
  public static List<String> problems(
      Enum<?>[] values, int prefixLevels, String envPrefix, String... docs) {
    List<Setting> table = table(values);
    List<String> problems = new ArrayList<>(namingProblems(table, prefixLevels, envPrefix));
    problems.addAll(envNameCollisions(table));
    List<Path> paths = new ArrayList<>();
    for (String doc : docs) {
      paths.add(repositoryFile(doc));
    }
    problems.addAll(docProblems(paths, table));
    for (Enum<?> value : values) {
      SettingDef setting = setting(value);
      if (setting.defaultValue() != null) {
        try {
          setting.type().check(setting.defaultValue());
        } catch (IllegalArgumentException e) {
          problems.add(
              setting.key() + ": the default is not a value of its type: " + e.getMessage());
        }
      }
    }
    return problems;
  }

  private static SettingDef setting(Enum<?> value) {
    try {
      Field field = value.getDeclaringClass().getDeclaredField("setting");
      field.setAccessible(true);
      return (SettingDef) field.get(value);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalArgumentException(
          value.getDeclaringClass().getSimpleName() + " has no SettingDef field named setting", e);
    }
  }

  /**
   * The naming rule: lowercase ASCII words; a dot separates levels, a dash joins the words of one
   * setting's name, so dashes only in the last segment; a level beyond the prefix and the subsystem
   * owns at least two settings; no key is also a level of another; and the environment variable is
   * {@code envPrefix} and the key upper-cased, dots and dashes becoming underscores.
   *
   * @param prefixLevels how many leading segments are the table's prefix: 1 for {@code klat.}, 0
   *     for the collector's keys
   */
  public static List<String> namingProblems(
      List<Setting> table, int prefixLevels, String envPrefix) {
    List<String> problems = new ArrayList<>();
    Map<String, Integer> settingsPerLevel = new HashMap<>();
    for (Setting s : table) {
      List<String> segments = Arrays.asList(s.key().split("\\.", -1));
      for (int i = 0; i < segments.size(); i++) {
        boolean last = i == segments.size() - 1;
        if (!(last ? LAST_SEGMENT : SEGMENT).matcher(segments.get(i)).matches()) {
          problems.add(
              s.key()
                  + ": segment '"
                  + segments.get(i)
                  + "' is not "
                  + (last ? "lowercase words joined by dashes" : "one lowercase word"));
        }
      }
      for (int levels = prefixLevels + 2; levels < segments.size(); levels++) {
        settingsPerLevel.merge(String.join(".", segments.subList(0, levels)), 1, Integer::sum);
      }
      String expectedEnv =
          envPrefix + s.key().toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
      if (!s.envName().equals(expectedEnv)) {
        problems.add(s.key() + ": environment variable " + s.envName() + ", not " + expectedEnv);
      }
      for (Setting other : table) {
        if (other.key().startsWith(s.key() + ".")) {
          problems.add(s.key() + " is a setting and a level of " + other.key());
        }
      }
    }
    settingsPerLevel.forEach(
        (level, count) -> {
          if (count < 2) {
            problems.add(
                level + " is a level of one setting only: join its words with dashes instead");
          }
        });
    return problems;
  }

  /**
   * Environment variables that two settings share, or a setting and another's old spelling: one
   * variable would set both. (An old spelling may share its own setting's variable: a rename from
   * dots to dashes keeps it.)
   */
  public static List<String> envNameCollisions(List<Setting> table) {
    List<String> problems = new ArrayList<>();
    Map<String, String> owner = new HashMap<>();
    for (Setting s : table) {
      List<String> names = new ArrayList<>();
      names.add(s.envName());
      names.addAll(s.oldEnvNames());
      for (String name : names) {
        String previous = owner.putIfAbsent(name, s.key());
        if (previous != null && !previous.equals(s.key())) {
          problems.add(name + " is the environment variable of " + previous + " and " + s.key());
        }
      }
    }
    return problems;
  }

  /**
   * The documentation against the table. In {@code docs}, every table whose header's first column
   * is "key" and that has a "type" column documents settings: each setting has exactly one row,
   * whose environment variable (if the table has the column) is {@code `NAME`}, whose type is the
   * table's, and whose default is {@code `value`} (or "empty" for an empty default), optionally
   * followed by a note in parentheses; no row names an unknown key. Every table whose header is
   * "key" and "old spellings" lists each renamed setting once with exactly its old spellings.
   */
  public static List<String> docProblems(List<Path> docs, List<Setting> table) {
    List<String> problems = new ArrayList<>();
    Map<String, Setting> byKey = new LinkedHashMap<>();
    table.forEach(s -> byKey.put(s.key(), s));
    Map<String, Integer> rows = new HashMap<>();
    Map<String, Integer> oldSpellingRows = new HashMap<>();
    for (Path doc : docs) {
      for (Map<String, String> row : tableRows(doc)) {
        String key = unquote(row.get("key"));
        Setting s = byKey.get(key);
        String where = doc.getFileName() + ", row " + row.get("key");
        if (row.containsKey("old spellings")) {
          oldSpellingRows.merge(key, 1, Integer::sum);
          if (s == null) {
            problems.add(where + ": old spellings of an unknown key");
          } else if (!String.join(", ", s.oldKeys().stream().map(k -> "`" + k + "`").toList())
              .equals(row.get("old spellings"))) {
            problems.add(where + ": old spellings are not " + s.oldKeys());
          }
          continue;
        }
        if (!row.containsKey("type")) {
          continue;
        }
        rows.merge(key, 1, Integer::sum);
        if (s == null) {
          problems.add(where + ": no such key");
          continue;
        }
        problems.addAll(cellProblems(where, row, s));
      }
    }
    for (Setting s : table) {
      int count = rows.getOrDefault(s.key(), 0);
      if (count != 1) {
        problems.add(s.key() + ": " + count + " rows in " + docs + ", not 1");
      }
      int oldCount = oldSpellingRows.getOrDefault(s.key(), 0);
      if (oldCount != (s.oldKeys().isEmpty() ? 0 : 1)) {
        problems.add(s.key() + ": " + oldCount + " rows of old spellings, for " + s.oldKeys());
      }
    }
    return problems;
  }

  private static List<String> cellProblems(String where, Map<String, String> row, Setting s) {
    List<String> problems = new ArrayList<>();
    String env = row.get("environment variable");
    if (env != null && !env.equals("`" + s.envName() + "`")) {
      problems.add(where + ": environment variable " + env + ", not `" + s.envName() + "`");
    }
    if (!row.get("type").equals(s.type())) {
      problems.add(where + ": type " + row.get("type") + ", not " + s.type());
    }
    String cell = row.get("default");
    if (cell == null) {
      problems.add(where + ": no default column");
    } else if (s.defaultValue() != null) {
      String expected = s.defaultValue().isEmpty() ? "empty" : "`" + s.defaultValue() + "`";
      if (!cell.equals(expected) && !cell.startsWith(expected + " (")) {
        problems.add(where + ": default " + cell + ", not " + expected);
      }
    }
    return problems;
  }

  /**
   * The rows of every table in {@code doc} whose first header cell is "key", each as header name to
   * cell (trimmed, {@code \|} unescaped).
   */
  private static List<Map<String, String>> tableRows(Path doc) {
    List<String> lines;
    try {
      lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Map<String, String>> rows = new ArrayList<>();
    List<String> header = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.startsWith("|")) {
        header = null;
      } else if (header == null) {
        List<String> cells = cells(line);
        boolean isKeyTable = !cells.isEmpty() && cells.get(0).equals("key");
        header = isKeyTable ? cells : List.of();
        i++; // the |---| line
      } else if (!header.isEmpty()) {
        List<String> cells = cells(line);
        Map<String, String> row = new LinkedHashMap<>();
        for (int c = 0; c < header.size() && c < cells.size(); c++) {
          row.put(header.get(c), cells.get(c));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /**
   * The file {@code relative} to the repository's root, found upwards from the working directory.
   */
  private static Path repositoryFile(String relative) {
    Path dir = Paths.get("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve(relative))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(relative + " is not above " + Paths.get("").toAbsolutePath());
    }
    return dir.resolve(relative);
  }

  private static List<String> cells(String line) {
    String[] parts = CELL_SEPARATOR.split(line, -1);
    List<String> cells = new ArrayList<>();
    // parts[0] is before the first '|', the last after the closing one.
    for (int i = 1; i < parts.length - 1; i++) {
      cells.add(parts[i].trim().replace("\\|", "|"));
    }
    return cells;
  }

  private static String unquote(String cell) {
    return cell != null && cell.length() >= 2 && cell.startsWith("`") && cell.endsWith("`")
        ? cell.substring(1, cell.length() - 1)
        : cell;
  }
}
