package dev.klat.probe;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.Weaver;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Properties;

/**
 * Weaves {@code kafka.cluster.Partition} when the broker loads it, and nothing else: every other
 * class costs one string comparison. The Kafka version is read from the {@code
 * kafka/kafka-version.properties} resource of the loader that loads {@code Partition} (no class is
 * loaded to find it); a version outside {@link BrokerVersions} is left alone, with one line.
 */
final class ProbeTransformer implements ClassFileTransformer {

  private static final String PARTITION = "kafka/cluster/Partition";

  private final ClassPlan plan;
  private final AgentLog log;
  private final Runnable onWoven;

  /**
   * @param plan the hooks of {@code Partition}
   * @param log where the outcome is said, once
   * @param onWoven runs once the class is woven (the exporter starts then, not before)
   */
  ProbeTransformer(ClassPlan plan, AgentLog log, Runnable onWoven) {
    this.plan = plan;
    this.log = log;
    this.onWoven = onWoven;
  }

  @Override
  public byte[] transform(
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classFile) {
    if (!PARTITION.equals(className) || classBeingRedefined != null) {
      return null;
    }
    try {
      String version = kafkaVersion(loader);
      if (!BrokerVersions.supported(version)) {
        log.warnOnce(
            "probe-unsupported",
            "broker probe: Kafka "
                + version
                + " is not supported ("
                + BrokerVersions.RANGE
                + "): the broker runs unchanged, without the probe");
        return null;
      }
      Weaver.Result result = Weaver.weave(classFile, plan);
      if (!result.skipped.isEmpty() || result.bytes == null) {
        // Half a probe would pair appends with no commits: all hooks or none.
        log.warnOnce(
            "probe-hooks",
            "broker probe: Kafka "
                + version
                + " does not have the expected Partition methods, the broker runs without the"
                + " probe: "
                + result.skipped);
        return null;
      }
      log.info("broker probe: instrumented kafka.cluster.Partition of Kafka " + version);
      onWoven.run();
      return result.bytes;
    } catch (Throwable t) {
      // Returning null leaves the class exactly as it was: the broker loses the probe, nothing
      // else.
      log.warnOnce("probe-transform", "broker probe: could not instrument Partition: " + t);
      return null;
    }
  }

  static String kafkaVersion(ClassLoader loader) {
    ClassLoader source = loader != null ? loader : ClassLoader.getSystemClassLoader();
    try (InputStream in = source.getResourceAsStream("kafka/kafka-version.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown").trim();
    } catch (Exception e) {
      return "unknown";
    }
  }
}
