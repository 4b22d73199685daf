package dev.klat.model;

/**
 * One setting of a configuration table (the agent's {@code ConfigKey}, the broker probe's {@code
 * ProbeKey}, the collector's {@code CollectorKey}): its key, environment variable, type, default
 * and old spellings, named by the rule of {@link SettingNames}. Each table is an enum whose
 * constants hold one of these, so the three tables have one shape and one doc test.
 *
 * <p>Immutable. Built without lambdas: the agent builds its table in {@code premain}.
 */
public final class SettingDef {
  private final String key;
  private final String envName;
  private final SettingType type;
  private final String defaultValue;
  private final String[] oldKeys;
  private final String[] oldEnvNames;

  /**
   * A setting whose key carries its prefix ({@code klat.export.queue-size}): the environment
   * variable is the whole key's ({@code KLAT_EXPORT_QUEUE_SIZE}).
   *
   * @param defaultValue the default as a user would write it, parsed like a user value; null when
   *     there is none or it is computed
   * @param oldKeys old spellings, still read with a warning
   */
  public SettingDef(String key, SettingType type, String defaultValue, String... oldKeys) {
    this("", key, type, defaultValue, oldKeys);
  }

  /**
   * A setting whose key goes without a prefix that its system property and environment variable
   * carry: the collector's {@code otlp.max-body-bytes} is {@code
   * klat.collector.otlp.max-body-bytes} and {@code KLAT_COLLECTOR_OTLP_MAX_BODY_BYTES}, with {@code
   * envPrefix} {@code klat.collector.}.
   */
  public SettingDef(
      String envPrefix, String key, SettingType type, String defaultValue, String... oldKeys) {
    this.key = key;
    this.envName = SettingNames.envName(envPrefix + key);
    this.type = type;
    this.defaultValue = defaultValue;
    this.oldKeys = oldKeys.clone();
    this.oldEnvNames = SettingNames.oldEnvNames(envPrefix, envName, oldKeys);
  }

  /** The key, for example {@code klat.sampling.max-per-second}. */
  public String key() {
    return key;
  }

  /** The environment variable, for example {@code KLAT_SAMPLING_MAX_PER_SECOND}. */
  public String envName() {
    return envName;
  }

  /** What values it takes, and how the documentation writes its type. */
  public SettingType type() {
    return type;
  }

  /** The default as a user would write it; null when there is none or it is computed. */
  public String defaultValue() {
    return defaultValue;
  }

  /** Old spellings of {@link #key()}, still read with a warning; a copy. */
  public String[] oldKeys() {
    return oldKeys.clone();
  }

  /**
   * The environment variables of {@link #oldKeys()} that are not {@link #envName()}: none for a
   * rename from dots to dashes, which maps to the same variable; a copy.
   */
  public String[] oldEnvNames() {
    return oldEnvNames.clone();
  }

  /** Whether {@code name} is one of the old spellings. */
  public boolean hasOldKey(String name) {
    for (String old : oldKeys) {
      if (old.equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code name} is the environment variable or one of the old spellings'. */
  public boolean hasEnvName(String name) {
    if (envName.equals(name)) {
      return true;
    }
    for (String old : oldEnvNames) {
      if (old.equals(name)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return key;
  }
}
