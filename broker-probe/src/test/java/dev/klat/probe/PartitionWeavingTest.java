package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.weave.Weaver;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Weaves the real {@code kafka.cluster.Partition} of the newest supported broker (on the test class
 * path, then loaded and verified by the JVM) and of the oldest (3.6.2, from its jar: every hook
 * must apply).
 */
class PartitionWeavingTest {

  private static final String PARTITION = "kafka/cluster/Partition";

  @Test
  void theNewestBrokersPartitionIsWovenAndPassesTheVerifier() throws Exception {
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    AgentLog log = new AgentLog(AgentLog.Level.INFO, new PrintStream(logged, true, "UTF-8"), null);
    AtomicInteger started = new AtomicInteger();
    ProbeTransformer transformer =
        new ProbeTransformer(PartitionInstrumentation.plan(), log, started::incrementAndGet);
    byte[] original = read(getClass().getClassLoader(), PARTITION + ".class");

    byte[] woven =
        transformer.transform(getClass().getClassLoader(), PARTITION, null, null, original);

    assertThat(woven).isNotNull();
    assertThat(started).hasValue(1);
    assertThat(new String(logged.toByteArray(), StandardCharsets.UTF_8))
        .contains("instrumented kafka.cluster.Partition of Kafka 4.4.0")
        .doesNotContain("WARN");
    Class<?> loaded = new PartitionLoader(getClass().getClassLoader(), woven).load();
    assertThat(loaded.getDeclaredMethods()).isNotEmpty();
  }

  static List<Path> supportedBrokerJars() throws Exception {
    try (Stream<Path> jars = Files.list(Paths.get("target", "supported-brokers"))) {
      return jars.sorted().collect(Collectors.toList());
    }
  }

  @Test
  void everySupportedMinorVersionIsChecked() throws Exception {
    assertThat(supportedBrokerJars())
        .extracting(p -> p.getFileName().toString())
        .containsExactly(
            "kafka_2.13-3.6.2.jar",
            "kafka_2.13-3.7.2.jar",
            "kafka_2.13-3.8.1.jar",
            "kafka_2.13-3.9.2.jar",
            "kafka_2.13-4.0.2.jar",
            "kafka_2.13-4.1.2.jar",
            "kafka_2.13-4.2.2.jar",
            "kafka_2.13-4.3.1.jar");
  }

  @ParameterizedTest
  @MethodSource("supportedBrokerJars")
  void everySupportedBrokersPartitionTakesEveryHook(Path jar) throws Exception {
    byte[] original;
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      ZipEntry entry = zip.getEntry(PARTITION + ".class");
      try (InputStream in = zip.getInputStream(entry)) {
        original = readAll(in);
      }
    }
    Weaver.Result result = Weaver.weave(original, PartitionInstrumentation.plan());
    assertThat(result.skipped).isEmpty();
    assertThat(result.bytes).isNotNull();
  }

  @Test
  void anUnsupportedVersionIsLeftAloneWithOneLine() throws Exception {
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    AgentLog log = new AgentLog(AgentLog.Level.INFO, new PrintStream(logged, true, "UTF-8"), null);
    AtomicInteger started = new AtomicInteger();
    ProbeTransformer transformer =
        new ProbeTransformer(PartitionInstrumentation.plan(), log, started::incrementAndGet);
    Path dir = Files.createTempDirectory("kafka-old");
    Files.createDirectories(dir.resolve("kafka"));
    Files.write(dir.resolve("kafka/kafka-version.properties"), "version=3.5.2\n".getBytes("UTF-8"));
    ClassLoader oldKafka =
        new java.net.URLClassLoader(new java.net.URL[] {dir.toUri().toURL()}, null);

    byte[] woven = transformer.transform(oldKafka, PARTITION, null, null, new byte[] {1, 2, 3});

    assertThat(woven).isNull();
    assertThat(started).hasValue(0);
    assertThat(new String(logged.toByteArray(), StandardCharsets.UTF_8))
        .contains("Kafka 3.5.2 is not supported (3.6 to 4.4)");
  }

  @Test
  void otherClassesAreNotTouched() {
    ProbeTransformer transformer =
        new ProbeTransformer(PartitionInstrumentation.plan(), AgentLog.global(), () -> {});
    assertThat(transformer.transform(null, "kafka/log/UnifiedLog", null, null, new byte[0]))
        .isNull();
  }

  private static byte[] read(ClassLoader loader, String resource) throws Exception {
    try (InputStream in = loader.getResourceAsStream(resource)) {
      return readAll(in);
    }
  }

  private static byte[] readAll(InputStream in) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    int n;
    while ((n = in.read(buffer)) > 0) {
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }

  /** Defines the woven Partition itself and takes every other class from the test class path. */
  private static final class PartitionLoader extends ClassLoader {
    private final byte[] woven;

    PartitionLoader(ClassLoader parent, byte[] woven) {
      super(parent);
      this.woven = woven;
    }

    Class<?> load() throws ClassNotFoundException {
      return Class.forName("kafka.cluster.Partition", true, this);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals("kafka.cluster.Partition")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        if (loaded == null) {
          loaded = defineClass(name, woven, 0, woven.length);
        }
        return loaded;
      }
    }
  }
}
