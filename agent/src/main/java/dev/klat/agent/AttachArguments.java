package dev.klat.agent;

/**
 * The settings an attach passes to the agent ({@code klat.endpoint=http://host:4318,klat.
 * sampling.probability=0.1}): a running JVM's system properties cannot be given on its command line
 * any more, so they are set here, before the configuration is read as for {@code -javaagent}.
 */
final class AttachArguments {

  private AttachArguments() {}

  /** The one setting whose value is itself a comma-separated list. */
  private static final String HEADERS = "klat.export.headers";

  /**
   * Sets each {@code klat.*} setting of {@code arguments} as a system property. The parts after
   * {@code klat.export.headers=} that are not {@code klat.*} settings are the rest of its list
   * ({@code klat.export.headers=a=1,b=2}).
   *
   * @throws IllegalArgumentException naming the part that is not {@code klat.key=value}, without
   *     its value (it may be a header's token)
   */
  static void applyAsSystemProperties(String arguments) {
    if (arguments == null || arguments.trim().isEmpty()) {
      return;
    }
    String previousKey = null;
    for (String part : arguments.split(",")) {
      String setting = part.trim();
      if (setting.isEmpty()) {
        continue;
      }
      int equals = setting.indexOf('=');
      if (HEADERS.equals(previousKey) && !setting.startsWith("klat.")) {
        System.setProperty(HEADERS, System.getProperty(HEADERS, "") + "," + setting);
        continue;
      }
      if (equals <= 0 || !setting.startsWith("klat.")) {
        String name = equals < 0 ? setting : setting.substring(0, equals) + "=...";
        throw new IllegalArgumentException(
            "attach argument '" + name + "' is not klat.key=value (settings: klat.*)");
      }
      previousKey = setting.substring(0, equals).trim();
      System.setProperty(previousKey, setting.substring(equals + 1).trim());
    }
  }
}
