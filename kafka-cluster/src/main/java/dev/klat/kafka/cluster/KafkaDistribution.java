package dev.klat.kafka.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;

/**
 * The Kafka broker runtime resolved by the {@code klat-kafka-dist} module at build time: the broker
 * classpath, the JMX exporter agent and our exporter rules.
 */
final class KafkaDistribution {

  private static final String RESOURCE_DIR = "/dev/klat/kafka/dist/";

  final String kafkaVersion;
  final String brokerClasspath;
  final Path jmxExporterAgent;

  private KafkaDistribution(String kafkaVersion, String brokerClasspath, Path jmxExporterAgent) {
    this.kafkaVersion = kafkaVersion;
    this.brokerClasspath = brokerClasspath;
    this.jmxExporterAgent = jmxExporterAgent;
  }

  static KafkaDistribution load() {
    Properties versions = new Properties();
    try (InputStream in = open("versions.properties")) {
      versions.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String classpath = read("broker.classpath").trim();
    Path agent = Path.of(read("jmx-exporter-agent.path").trim());
    for (String entry : classpath.split(":")) {
      if (!Files.isRegularFile(Path.of(entry))) {
        throw new IllegalStateException(
            "broker classpath entry " + entry + " is missing: rebuild klat-kafka-dist");
      }
    }
    if (!Files.isRegularFile(agent)) {
      throw new IllegalStateException("JMX exporter agent " + agent + " is missing");
    }
    return new KafkaDistribution(versions.getProperty("kafka.version"), classpath, agent);
  }

  /** Writes our JMX exporter rules file into {@code directory} and returns its path. */
  static Path writeExporterRules(Path directory) {
    Path rules = directory.resolve("jmx-exporter-kafka-broker.yaml");
    try (InputStream in = open("kafka-broker.yaml")) {
      Files.copy(in, rules, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rules;
  }

  private static String read(String name) {
    try (InputStream in = open(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream open(String name) {
    InputStream in = KafkaDistribution.class.getResourceAsStream(RESOURCE_DIR + name);
    if (in == null) {
      throw new IllegalStateException(
          "resource " + RESOURCE_DIR + name + " not found: is klat-kafka-dist on the classpath?");
    }
    return in;
  }
}
