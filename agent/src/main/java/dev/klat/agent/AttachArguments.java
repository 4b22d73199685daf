package dev.klat.agent;

/**
 * The settings an attach passes to the agent ({@code klat.endpoint=http://host:4318,klat.
 * sampling.probability=0.1}): a running JVM's system properties cannot be given on its command line
 * any more, so they are set here, before the configuration is read as for {@code -javaagent}.
 */
final class AttachArguments {

  private AttachArguments() {}

  /**
   * Sets each {@code klat.*} setting of {@code arguments} as a system property.
   *
   * @throws IllegalArgumentException naming the part that is not {@code klat.key=value}
   */
  static void applyAsSystemProperties(String arguments) {
    if (arguments == null || arguments.trim().isEmpty()) {
      return;
    }
    for (String part : arguments.split(",")) {
      String setting = part.trim();
      if (setting.isEmpty()) {
        continue;
      }
      int equals = setting.indexOf('=');
      if (equals <= 0 || !setting.startsWith("klat.")) {
        throw new IllegalArgumentException(
            "attach argument '" + setting + "' is not klat.key=value (settings: klat.*)");
      }
      System.setProperty(setting.substring(0, equals).trim(), setting.substring(equals + 1).trim());
    }
  }
}
