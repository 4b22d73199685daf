package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.weave.KlatTransformer;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.StateHolder;
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
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The share consumer's plans against the released kafka-clients 4.1.2, 4.2.2 and 4.3.1 (copied by
 * the module's pom) and 4.4.0 (the class path): every hook binds but the one each version lacks,
 * and the woven classes load, link and initialize (the JVM's verifier checks them).
 */
class ShareWeavingTest {

  @ParameterizedTest
  @CsvSource({
    "4.1.2, KafkaShareConsumer.acknowledge(offset)",
    "4.2.2, ''",
    "4.3.1, ''",
    "4.4.0, ''"
  })
  void everyShareHookBindsButTheOnesItsVersionLacks(String version, String missing)
      throws Exception {
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    AgentLog log =
        new AgentLog(
            AgentLog.Level.DEBUG,
            new PrintStream(logged, true, StandardCharsets.UTF_8),
            System::currentTimeMillis);
    List<ClassPlan> plans = ShareConsumerInstrumentation.plans();
    KlatTransformer transformer = new KlatTransformer(plans, loader -> true, log);
    try (URLClassLoader jar = jarOf(version)) {
      ClassLoader loader = new WeavingLoader(transformer, jar);
      for (ClassPlan plan : plans) {
        String name = plan.internalName().replace('/', '.');
        Class<?> loaded = Class.forName(name, true, loader);
        assertThat(loaded.getClassLoader()).as(name).isSameAs(loader);
        assertThat(output(logged)).as(version + " " + name).contains("instrumented " + name);
        if (plan.addsState()) {
          assertThat(StateHolder.class).as(name).isAssignableFrom(loaded);
        }
      }
    }
    String out = output(logged);
    if (missing.isEmpty()) {
      assertThat(out).as(version).doesNotContain("WARN");
    } else {
      assertThat(out).as(version).contains("hook skipped").contains(missing);
      assertThat(out.split("hook skipped", -1)).as(version).hasSize(2);
    }
  }

  // Null for 4.4.0, the class path's.
  private static URLClassLoader jarOf(String version) throws IOException {
    if (version.equals("4.4.0")) {
      return null;
    }
    String directory = System.getProperty("klat.kafka-clients-jars");
    assertThat(directory).as("klat.kafka-clients-jars, set by the module's pom").isNotNull();
    Path path = Paths.get(directory, "kafka-clients-" + version + ".jar");
    assertThat(Files.isRegularFile(path)).as(path.toString()).isTrue();
    return new URLClassLoader(new URL[] {path.toUri().toURL()}, (ClassLoader) null);
  }

  private static String output(ByteArrayOutputStream logged) {
    return new String(logged.toByteArray(), StandardCharsets.UTF_8);
  }

  /**
   * Child first for kafka-clients (woven; from the jar when given) and for the consumer hook
   * package (as {@code HelperInjector} defines it in an application's loader).
   */
  private static final class WeavingLoader extends ClassLoader {
    private final KlatTransformer transformer;
    private final ClassLoader kafkaClients;

    WeavingLoader(KlatTransformer transformer, ClassLoader jar) {
      super(ShareWeavingTest.class.getClassLoader());
      this.transformer = transformer;
      this.kafkaClients = jar != null ? jar : getParent();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      boolean kafka = name.startsWith("org.apache.kafka.");
      String hooks = "dev.klat.agent.consumer.";
      boolean hook = name.startsWith(hooks) && name.indexOf('.', hooks.length()) < 0;
      if (!kafka && !hook) {
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

    @Override
    public URL getResource(String name) {
      URL found = kafkaClients.getResource(name);
      return found != null ? found : super.getResource(name);
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
