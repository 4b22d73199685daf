package dev.klat.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.consumer.ConsumerInstrumentation;
import dev.klat.agent.consumer.ShareConsumerInstrumentation;
import dev.klat.agent.producer.ProducerInstrumentation;
import dev.klat.agent.weave.KlatTransformer;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.Hook;
import dev.klat.agentcore.weave.StateHolder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The producer and consumer plans against the kafka-clients this module compiles with (4.4.0): the
 * integration tests run the other versions.
 */
class InstrumentationPlansTest {

  private static List<ClassPlan> allPlans() {
    List<ClassPlan> plans = new ArrayList<>(ProducerInstrumentation.plans());
    plans.addAll(ConsumerInstrumentation.plans());
    plans.addAll(ShareConsumerInstrumentation.plans());
    return plans;
  }

  @Test
  void everyHookNamesAPublicStaticMethodWithItsExactDescriptor() throws Exception {
    for (ClassPlan plan : allPlans()) {
      for (Hook hook : plan.hooks()) {
        Class<?> owner = Class.forName(hook.hookOwner().replace('/', '.'));
        Method found = null;
        for (Method method : owner.getDeclaredMethods()) {
          if (method.getName().equals(hook.hookName())
              && Type.getMethodDescriptor(method).equals(hook.hookDescriptor())) {
            found = method;
          }
        }
        assertThat(found).as(hook.label() + " -> " + hook.hookName()).isNotNull();
        assertThat(
                Modifier.isPublic(found.getModifiers()) && Modifier.isStatic(found.getModifiers()))
            .as(hook.label())
            .isTrue();
      }
    }
  }

  @Test
  void everyHookFitsAndTheWovenClassesPassTheVerifier() throws Exception {
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    AgentLog log =
        new AgentLog(
            AgentLog.Level.DEBUG,
            new PrintStream(logged, true, StandardCharsets.UTF_8),
            System::currentTimeMillis);
    KlatTransformer transformer = new KlatTransformer(allPlans(), loader -> true, log);
    ClassLoader kafka = new WeavingLoader(transformer);

    int woven = 0;
    for (ClassPlan plan : allPlans()) {
      String name = plan.internalName().replace('/', '.');
      if (ClassLoader.getSystemResource(plan.internalName() + ".class") == null) {
        // Fetcher$CompletedFetch is CompletedFetch from 3.5 on.
        assertThat(name).endsWith("Fetcher$CompletedFetch");
        continue;
      }
      Class<?> loaded = Class.forName(name, true, kafka);
      assertThat(loaded.getClassLoader()).isSameAs(kafka);
      assertThat(output(logged)).as(name).contains("instrumented " + name);
      if (plan.addsState()) {
        assertThat(StateHolder.class).as(name).isAssignableFrom(loaded);
      }
      woven++;
    }

    assertThat(woven).isEqualTo(allPlans().size() - 1);
    assertThat(output(logged)).doesNotContain("WARN");
  }

  @Test
  void plansAreDeclaredWhenTheFirstKafkaClientsClassLoadsNotBefore() throws Exception {
    int[] calls = new int[1];
    KlatTransformer transformer =
        new KlatTransformer(
            () -> {
              calls[0]++;
              return allPlans();
            },
            loader -> true,
            new AgentLog(AgentLog.Level.WARN, System.err, null));

    assertThat(transformer.transform(null, "java/lang/Thread", null, null, new byte[0])).isNull();
    assertThat(calls[0]).isZero();

    String producer = "org/apache/kafka/clients/producer/KafkaProducer";
    WeavingLoader loader = new WeavingLoader(transformer);
    byte[] original = loader.read(producer + ".class");
    assertThat(transformer.transform(loader, producer, null, null, original)).isNotNull();
    assertThat(
            transformer.transform(
                loader, "org/apache/kafka/clients/NetworkClient", null, null, new byte[0]))
        .isNull();
    assertThat(calls[0]).isEqualTo(1);
  }

  /**
   * The JIT inlines a call site that is not hot only when the callee has at most 35 bytes of
   * bytecode ({@code -XX:MaxInlineSize}): {@code send()} woven with more is called, not inlined, in
   * the application's loop, which costs every record.
   */
  @Test
  void theWovenSendStaysSmallEnoughToInline() throws Exception {
    KlatTransformer transformer =
        new KlatTransformer(
            ProducerInstrumentation.plans(),
            loader -> true,
            new AgentLog(AgentLog.Level.WARN, System.err, System::currentTimeMillis));
    String producer = "org/apache/kafka/clients/producer/KafkaProducer";
    WeavingLoader loader = new WeavingLoader(transformer);
    byte[] original = loader.read(producer + ".class");
    byte[] woven = transformer.transform(loader, producer, null, null, original);
    assertThat(woven).isNotNull();

    String descriptor =
        "(Lorg/apache/kafka/clients/producer/ProducerRecord;"
            + "Lorg/apache/kafka/clients/producer/Callback;)Ljava/util/concurrent/Future;";
    assertThat(codeLength(original, "send", descriptor)).isLessThan(20);
    assertThat(codeLength(woven, "send", descriptor)).isLessThanOrEqualTo(35);
  }

  // The bytecode length of one method: the offset after its last instruction, as ASM reads it.
  private static int codeLength(byte[] classFile, String name, String descriptor) {
    int[] length = {-1};
    new ClassReader(classFile)
        .accept(
            new ClassVisitor(Opcodes.ASM9) {
              @Override
              public MethodVisitor visitMethod(
                  int access, String method, String desc, String signature, String[] exceptions) {
                if (!method.equals(name) || !desc.equals(descriptor)) {
                  return null;
                }
                ClassWriter writer = new ClassWriter(0);
                writer.visit(
                    Opcodes.V1_8, Opcodes.ACC_PUBLIC, "OneMethod", null, "java/lang/Object", null);
                MethodVisitor copy =
                    writer.visitMethod(access, method, desc, signature, exceptions);
                return new MethodVisitor(Opcodes.ASM9, copy) {
                  @Override
                  public void visitEnd() {
                    super.visitEnd();
                    length[0] = codeAttributeLength(writer.toByteArray());
                  }
                };
              }
            },
            ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    return length[0];
  }

  // A class holding one method: its Code attribute's code_length, read with ASM's own reader.
  private static int codeAttributeLength(byte[] oneMethodClass) {
    ClassReader reader = new ClassReader(oneMethodClass);
    int offset = reader.header + 6; // access, this, super
    offset += 2 + 2 * reader.readUnsignedShort(offset); // interfaces
    offset += 2; // fields_count, zero
    offset += 2; // methods_count, one
    offset += 6; // access, name, descriptor
    int attributes = reader.readUnsignedShort(offset);
    offset += 2;
    char[] buffer = new char[reader.getMaxStringLength()];
    for (int i = 0; i < attributes; i++) {
      String attribute = reader.readUTF8(offset, buffer);
      if (attribute.equals("Code")) {
        return reader.readInt(offset + 10); // name, length, max_stack, max_locals
      }
      offset += 6 + reader.readInt(offset + 2);
    }
    return -1;
  }

  private static String output(ByteArrayOutputStream logged) {
    return new String(logged.toByteArray(), StandardCharsets.UTF_8);
  }

  /** Loads kafka-clients itself (child first), weaving as the agent's transformer does. */
  private static final class WeavingLoader extends ClassLoader {
    private final KlatTransformer transformer;

    WeavingLoader(KlatTransformer transformer) {
      super(InstrumentationPlansTest.class.getClassLoader());
      this.transformer = transformer;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith("org.apache.kafka.")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        if (loaded != null) {
          return loaded;
        }
        String internalName = name.replace('.', '/');
        byte[] original = read(internalName + ".class");
        byte[] woven = transformer.transform(this, internalName, null, null, original);
        byte[] bytes = woven != null ? woven : original;
        return defineClass(name, bytes, 0, bytes.length);
      }
    }

    private byte[] read(String path) throws ClassNotFoundException {
      try (InputStream in = getParent().getResourceAsStream(path)) {
        if (in == null) {
          throw new ClassNotFoundException(path);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
          out.write(buffer, 0, n);
        }
        return out.toByteArray();
      } catch (IOException e) {
        throw new ClassNotFoundException(path, e);
      }
    }
  }
}
