package dev.klat.model;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How klat names its settings, and reads a setting that was renamed. The rule, written down in
 * {@code docs/configuration.md} ("Naming"), is OpenTelemetry's: lowercase ASCII words; a dot
 * separates levels (prefix, subsystem, an optional sub-level that owns several settings such as
 * {@code otlp.http}); a dash joins the words of one setting's name ({@code max-per-second}), so
 * dashes appear in the last segment only. The environment variable is the name upper-cased with
 * dots and dashes both becoming underscores.
 *
 * <p>A renamed setting keeps its old spellings: they are still read, with a warning naming the new
 * key; where a source sets both, the new key wins.
 */
public final class SettingNames {

  private SettingNames() {}

  /**
   * The environment variable of a setting: {@code name} upper-cased, with {@code .} and {@code -}
   * both becoming {@code _} (OpenTelemetry's mapping), so {@code klat.sampling.max-per-second} is
   * {@code KLAT_SAMPLING_MAX_PER_SECOND}. {@code name} carries the prefix, such as {@code klat.} or
   * {@code klat.collector.}.
   */
  public static String envName(String name) {
    return name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * The environment variables of a setting's old spellings that are not its own: none for a rename
   * from dots to dashes, which maps to the same variable; {@code JOIN_WINDOW_MS} for the
   * collector's old {@code join.window.ms}.
   *
   * @param prefix what comes before a key in {@link #envName}'s argument, such as {@code
   *     klat.collector.}; empty for keys that carry their prefix
   * @param envName the setting's own environment variable
   */
  public static String[] oldEnvNames(String prefix, String envName, String[] oldKeys) {
    String[] names = new String[oldKeys.length];
    int count = 0;
    for (String old : oldKeys) {
      String name = envName(prefix + old);
      if (!name.equals(envName)) {
        names[count++] = name;
      }
    }
    if (count == names.length) {
      return names;
    }
    String[] distinct = new String[count];
    System.arraycopy(names, 0, distinct, 0, count);
    return distinct;
  }

  /**
   * The name under which {@code source} sets a setting: {@code name} if the source has it, else the
   * first of {@code oldNames} it has, else null. A name counts as set when the source maps it to a
   * value, even an empty one: the new name wins over the old ones whatever its value.
   *
   * @param source names to values: system properties, a file's properties, flags or the environment
   *     (then the names are environment variables)
   */
  public static String spellingIn(Map<?, ?> source, String name, String[] oldNames) {
    if (source.get(name) != null) {
      return name;
    }
    for (String old : oldNames) {
      if (source.get(old) != null) {
        return old;
      }
    }
    return null;
  }

  /**
   * Adds to {@code warnings} one line for each of {@code oldNames} that {@code source} sets (see
   * {@link #oldSpellingWarning}).
   *
   * @param where the source, for the message, for example {@code system property}
   */
  public static void addOldSpellingWarnings(
      Map<?, ?> source, String where, String name, String[] oldNames, List<String> warnings) {
    for (String old : oldNames) {
      if (source.get(old) != null) {
        warnings.add(oldSpellingWarning(old, where, name, source.get(name) != null));
      }
    }
  }

  /**
   * The warning for an old spelling: {@code "<old> (<where>) is deprecated: use <name>"}, and when
   * the source sets the new name too, {@code "; <name> is set there too and wins"}.
   */
  public static String oldSpellingWarning(
      String oldName, String where, String name, boolean nameSetThereToo) {
    return oldName
        + " ("
        + where
        + ") is deprecated: use "
        + name
        + (nameSetThereToo ? "; " + name + " is set there too and wins" : "");
  }
}
