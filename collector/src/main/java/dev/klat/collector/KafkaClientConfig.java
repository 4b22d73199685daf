package dev.klat.collector;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * Kafka client properties from a file ({@code brokers.kafka-config}, {@code spans.kafka.config}):
 * how the collector's clients reach a secured cluster ({@code security.protocol}, {@code sasl.*},
 * {@code ssl.*}, or any other client property). The file goes under what klat sets itself: a key
 * klat sets for a client ({@code bootstrap.servers} from its own setting, {@code group.id} from
 * {@code spans.kafka.group}, its client id, timeouts, serializers, the producer's acks) keeps
 * klat's value, and a client created over such a key logs a warning naming the key (never its
 * value: a {@code sasl.jaas.config} holds a password). So a file written for Kafka's own tools
 * ({@code --command-config}, often with a {@code bootstrap.servers}) serves as it is.
 *
 * @param setting the setting that named the file, for messages
 * @param path the file, or empty for none
 * @param properties its properties (empty for none)
 */
public record KafkaClientConfig(String setting, String path, Map<String, String> properties) {
  private static final Logger LOG = Logger.getLogger(KafkaClientConfig.class.getName());

  /** A file larger than this is not a client properties file. */
  static final long MAX_FILE_BYTES = 1024 * 1024;

  /** No file: the clients connect in plaintext, as Kafka's defaults have it. */
  public static KafkaClientConfig none(String setting) {
    return new KafkaClientConfig(setting, "", Map.of());
  }

  public KafkaClientConfig {
    properties = Map.copyOf(properties);
  }

  /**
   * Reads the file {@code path} names, or none when it is empty.
   *
   * @throws IllegalArgumentException naming {@code setting} and the file when it cannot be read or
   *     is too large
   */
  static KafkaClientConfig read(String setting, String path) {
    String p = path.trim();
    if (p.isEmpty()) {
      return none(setting);
    }
    Path file = Path.of(p);
    Properties loaded = new Properties();
    try {
      long size = Files.size(file);
      if (size > MAX_FILE_BYTES) {
        throw new IllegalArgumentException(
            setting + ": " + p + " is " + size + " bytes, more than a client properties file");
      }
      try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        loaded.load(in);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the Kafka client properties file " + p + " (" + setting + "): " + e, e);
    }
    Map<String, String> out = new TreeMap<>();
    for (String key : loaded.stringPropertyNames()) {
      out.put(key, loaded.getProperty(key).trim());
    }
    return new KafkaClientConfig(setting, p, out);
  }

  /** The keys the file sets (never their values: some are secrets), for logs and status. */
  public Set<String> keys() {
    return new TreeSet<>(properties.keySet());
  }

  /**
   * The file's properties with klat's own for one client put over them.
   *
   * @param klat what klat sets for this client
   * @param client the client's name, for the warning about overridden keys
   */
  public Properties over(Map<String, ?> klat, String client) {
    Properties out = new Properties();
    out.putAll(properties);
    Set<String> overridden = new TreeSet<>();
    for (Map.Entry<String, ?> e : klat.entrySet()) {
      String mine = properties.get(e.getKey());
      if (mine != null && !mine.equals(String.valueOf(e.getValue()))) {
        overridden.add(e.getKey());
      }
      out.put(e.getKey(), e.getValue());
    }
    if (!overridden.isEmpty()) {
      LOG.warning(
          setting
              + ": "
              + client
              + " keeps klat's own value of "
              + String.join(", ", overridden)
              + " over "
              + path);
    }
    return out;
  }

  /** The same, for klat's properties held in a {@link Properties}. */
  public Properties over(Properties klat, String client) {
    Map<String, Object> m = new TreeMap<>();
    for (Map.Entry<Object, Object> e : klat.entrySet()) {
      m.put(String.valueOf(e.getKey()), e.getValue());
    }
    return over(m, client);
  }

  /** The setting, the file and its keys: never a value, some are secrets. */
  @Override
  public String toString() {
    return setting + (path.isEmpty() ? " (none)" : " (" + path + ": " + keys() + ")");
  }
}
