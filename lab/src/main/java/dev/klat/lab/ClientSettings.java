package dev.klat.lab;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Properties;

/**
 * The {@code key=value} settings the lab passes to its producer and consumer processes, with the
 * {@code --command-config} file named by {@link #FILE_KEY} read in first, so that an experiment's
 * own settings (acks, linger.ms, ...) override it and the file's {@code bootstrap.servers} gives
 * way to the lab's.
 */
final class ClientSettings {
  static final String FILE_KEY = "klat.lab.command.config";

  private ClientSettings() {}

  static void apply(Properties properties, List<String> settings) throws IOException {
    for (String setting : settings) {
      int equals = setting.indexOf('=');
      String key = setting.substring(0, equals);
      String value = setting.substring(equals + 1);
      if (key.equals(FILE_KEY)) {
        Properties file = new Properties();
        try (Reader in = Files.newBufferedReader(Paths.get(value), StandardCharsets.UTF_8)) {
          file.load(in);
        }
        file.remove("bootstrap.servers");
        for (String name : file.stringPropertyNames()) {
          properties.putIfAbsent(name, file.getProperty(name));
        }
      } else {
        properties.put(key, value);
      }
    }
  }
}
