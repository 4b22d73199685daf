package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.TestRuntime;
import dev.klat.agent.consumer.ConsumerInstrumentation;
import dev.klat.agent.weave.KlatTransformer;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.log.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The link through the real {@code ConsumerRecords} iterator of kafka-clients 2.8.2 (the oldest
 * supported) and 4.4.0 (the newest), woven by the agent's transformer: the hook packages are
 * defined in the weaving loader as the helper injector defines them in an application's.
 */
class LinkWeavingTest {

  private static final String ITERATOR =
      "org.apache.kafka.clients.consumer.ConsumerRecords$ConcatenatedIterable$1";

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void aPollLoopLinksEachOutputToTheSampledRecordItTookOn44() throws Exception {
    assertPollLoopLinks(null, "org.apache.kafka.common.utils.internals.AbstractIterator");
  }

  @Test
  void aPollLoopLinksEachOutputToTheSampledRecordItTookOn28() throws Exception {
    String jar = System.getProperty("klat.kafka-clients-2.8.jar");
    assertThat(jar).as("klat.kafka-clients-2.8.jar, set by the module's pom").isNotNull();
    Path path = Paths.get(jar);
    assertThat(Files.isRegularFile(path)).as(jar).isTrue();
    assertPollLoopLinks(path.toUri().toURL(), "org.apache.kafka.common.utils.AbstractIterator");
  }

  private static void assertPollLoopLinks(URL kafkaClientsJar, String iteratorBase)
      throws Exception {
    for (boolean byTopic : new boolean[] {false, true}) {
      TestRuntime.install(0.0, 100.0, TimeSource.SYSTEM);
      ByteArrayOutputStream logged = new ByteArrayOutputStream();
      List<String> outputs = runDriver(kafkaClientsJar, logged, byTopic, iteratorBase);

      assertThat(outputs)
          .as("by topic: " + byTopic)
          .containsExactly(
              "woven=true",
              // Partition 1 first (the map's order), its record at offset 12 sampled.
              "10:unsampled",
              "11:unsampled",
              "12:parent=12,count=1,link=in-1@12",
              "0:unsampled",
              "1:parent=1,count=1,link=in-0@1",
              "2:unsampled");
      assertThat(output(logged)).doesNotContain("WARN");
    }
  }

  @SuppressWarnings("unchecked")
  private static List<String> runDriver(
      URL jar, ByteArrayOutputStream logged, boolean byTopic, String iteratorBase)
      throws Exception {
    AgentLog log =
        new AgentLog(
            AgentLog.Level.DEBUG,
            new PrintStream(logged, true, StandardCharsets.UTF_8),
            System::currentTimeMillis);
    List<dev.klat.agentcore.weave.ClassPlan> plans =
        new ArrayList<>(ProducerInstrumentation.plans());
    plans.addAll(ConsumerInstrumentation.plans());
    KlatTransformer transformer = new KlatTransformer(plans, loader -> true, log);
    try (URLClassLoader jarOnly =
        jar == null ? null : new URLClassLoader(new URL[] {jar}, (ClassLoader) null)) {
      ClassLoader loader = new InjectingLoader(transformer, jarOnly);
      Class<?> driver = Class.forName(LinkDriver.class.getName(), true, loader);
      assertThat(driver.getClassLoader()).isSameAs(loader);
      // The version meant: the iterator's base class moved in 3.x.
      assertThat(Class.forName(ITERATOR, false, loader).getSuperclass().getName())
          .isEqualTo(iteratorBase);
      return (List<String>) driver.getMethod("run", boolean.class).invoke(null, byTopic);
    }
  }

  private static String output(ByteArrayOutputStream logged) {
    return new String(logged.toByteArray(), StandardCharsets.UTF_8);
  }

  /**
   * Child first for kafka-clients (woven; from {@code jar} when given) and for the two hook
   * packages (as {@code HelperInjector} defines them); everything else from the test's loader.
   */
  private static final class InjectingLoader extends ClassLoader {
    private final KlatTransformer transformer;
    private final ClassLoader kafkaClients;

    InjectingLoader(KlatTransformer transformer, ClassLoader jar) {
      super(LinkWeavingTest.class.getClassLoader());
      this.transformer = transformer;
      this.kafkaClients = jar != null ? jar : getParent();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      boolean kafka = name.startsWith("org.apache.kafka.");
      boolean hooks =
          isInPackage(name, "dev.klat.agent.producer.")
              || isInPackage(name, "dev.klat.agent.consumer.");
      if (!kafka && !hooks) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        if (loaded != null) {
          return loaded;
        }
        String internalName = name.replace('.', '/');
        byte[] original = read(kafka ? kafkaClients : getParent(), internalName + ".class");
        byte[] woven =
            kafka ? transformer.transform(this, internalName, null, null, original) : null;
        byte[] bytes = woven != null ? woven : original;
        return defineClass(name, bytes, 0, bytes.length);
      }
    }

    private static boolean isInPackage(String name, String prefix) {
      return name.startsWith(prefix) && name.indexOf('.', prefix.length()) < 0;
    }

    private static byte[] read(ClassLoader from, String path) throws ClassNotFoundException {
      try (InputStream in = from.getResourceAsStream(path)) {
        if (in == null) {
          throw new ClassNotFoundException(path);
        }
        return in.readAllBytes();
      } catch (IOException e) {
        throw new ClassNotFoundException(path, e);
      }
    }
  }
}
