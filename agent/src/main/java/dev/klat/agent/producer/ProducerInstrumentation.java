package dev.klat.agent.producer;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.klat.agent.AdviceErrors;
import dev.klat.agent.config.AgentLog;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.implementation.bytecode.member.MethodInvocation;
import net.bytebuddy.matcher.ElementMatcher;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Weaves the producer hooks into kafka-clients 2.8 to 4.4.
 *
 * <p>Every hook binds to a method whose name and shape are the same in all supported versions
 * (checked against the released jars; see {@code docs/agent-internals.md}). Advice is inlined,
 * names only public kafka-clients types or {@code Object}, suppresses every {@code Throwable}, and
 * calls {@link ProducerHooks}, where the logic lives. A hook whose method is missing in the version
 * met is skipped with one log line; the others still apply.
 */
public final class ProducerInstrumentation {

  static final String PRODUCER = "org.apache.kafka.clients.producer.KafkaProducer";
  static final String BATCH = "org.apache.kafka.clients.producer.internals.ProducerBatch";
  static final String SENDER = "org.apache.kafka.clients.producer.internals.Sender";
  private static final String STATE_FIELD = "klat$state";

  static final ElementMatcher<MethodDescription> SEND =
      named("send")
          .and(takesArguments(2))
          .and(takesArgument(0, named("org.apache.kafka.clients.producer.ProducerRecord")))
          .and(takesArgument(1, named("org.apache.kafka.clients.producer.Callback")));
  static final ElementMatcher<MethodDescription> DRAINED =
      named("drained").and(takesArguments(1)).and(takesArgument(0, long.class));
  // Two signatures: (long, long, RuntimeException) in 2.8, (long, long, Function) from 3.0.
  static final ElementMatcher<MethodDescription> COMPLETE =
      named("completeFutureAndFireCallbacks")
          .and(takesArguments(3))
          .and(takesArgument(0, long.class))
          .and(takesArgument(1, long.class));
  static final ElementMatcher<MethodDescription> SEND_PRODUCE_REQUEST =
      named("sendProduceRequest")
          .and(takesArguments(5))
          .and(takesArgument(1, int.class))
          .and(takesArgument(4, List.class));

  private static final Advice.ExceptionHandler REPORT_FAILURE = reportFailure();

  private ProducerInstrumentation() {}

  private static Advice.ExceptionHandler reportFailure() {
    try {
      return new Advice.ExceptionHandler.Simple(
          MethodInvocation.invoke(
              new MethodDescription.ForLoadedMethod(
                  AdviceErrors.class.getMethod("report", Throwable.class))));
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Adds the producer transformations to {@code builder}. */
  public static AgentBuilder install(AgentBuilder builder, final AgentLog log) {
    return builder
        .type(named(PRODUCER))
        .transform(
            (b, type, classLoader, module, protectionDomain) -> {
              if (!helpersCanLink(classLoader, log)) {
                return b;
              }
              DynamicType.Builder<?> withState = withStateField(b);
              return hook(withState, type, SEND, SendAdvice.class, "KafkaProducer.send", log);
            })
        .type(named(BATCH))
        .transform(
            (b, type, classLoader, module, protectionDomain) -> {
              if (!helpersCanLink(classLoader, log)) {
                return b;
              }
              DynamicType.Builder<?> withState = withStateField(b);
              withState =
                  hook(withState, type, DRAINED, DrainedAdvice.class, "ProducerBatch.drained", log);
              return hook(
                  withState,
                  type,
                  COMPLETE,
                  CompletionAdvice.class,
                  "ProducerBatch.completeFutureAndFireCallbacks",
                  log);
            })
        .type(named(SENDER))
        .transform(
            (b, type, classLoader, module, protectionDomain) ->
                helpersCanLink(classLoader, log)
                    ? hook(
                        b,
                        type,
                        SEND_PRODUCE_REQUEST,
                        ProduceRequestAdvice.class,
                        "Sender.sendProduceRequest",
                        log)
                    : b);
  }

  /**
   * The hooks' helpers live in the agent's class loader and link against kafka-clients from there.
   * When the application's kafka-clients is not the one that loader sees (a Spring Boot executable
   * jar, an application server), woven code would throw a linkage error on every call: such class
   * loaders are left untouched, with one line saying so.
   */
  static boolean helpersCanLink(ClassLoader applicationLoader, AgentLog log) {
    String probe = "org.apache.kafka.clients.producer.Callback";
    try {
      Class<?> seenByHelpers =
          Class.forName(probe, false, ProducerInstrumentation.class.getClassLoader());
      Class<?> seenByApplication = Class.forName(probe, false, applicationLoader);
      if (seenByHelpers == seenByApplication) {
        return true;
      }
    } catch (ClassNotFoundException | LinkageError e) {
      // Falls through to the warning.
    }
    log.warnOnce(
        "helpers-cannot-link-" + System.identityHashCode(applicationLoader),
        "kafka-clients in class loader "
            + applicationLoader
            + " is not visible to the klat agent (for example a Spring Boot executable jar):"
            + " its producers are not instrumented");
    return false;
  }

  private static DynamicType.Builder<?> withStateField(DynamicType.Builder<?> builder) {
    return builder
        .defineField(STATE_FIELD, Object.class, Visibility.PRIVATE, FieldManifestation.VOLATILE)
        .implement(StateHolder.class)
        .intercept(FieldAccessor.ofField(STATE_FIELD));
  }

  private static DynamicType.Builder<?> hook(
      DynamicType.Builder<?> builder,
      TypeDescription type,
      ElementMatcher<MethodDescription> method,
      Class<?> advice,
      String hookName,
      AgentLog log) {
    if (type.getDeclaredMethods().filter(method).isEmpty()) {
      log.warnOnce(
          "missing-hook-" + hookName,
          "kafka-clients in "
              + type.getName()
              + " has no method matching "
              + hookName
              + ": that hook is skipped, the rest of the agent still works");
      return builder;
    }
    return builder.visit(Advice.to(advice).withExceptionHandler(REPORT_FAILURE).on(method));
  }

  static final class SendAdvice {
    private SendAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.This Object producer,
        @Advice.FieldValue("clientId") String clientId,
        @Advice.FieldValue("producerConfig") Object producerConfig,
        @Advice.FieldValue("apiVersions") Object apiVersions,
        @Advice.Argument(value = 0, readOnly = false) ProducerRecord<?, ?> record,
        @Advice.Argument(value = 1, readOnly = false) Callback callback) {
      Object tracker =
          ProducerHooks.onSend(producer, clientId, producerConfig, apiVersions, record, callback);
      if (tracker != null) {
        record = ProducerHooks.recordToSend(tracker);
        callback = (Callback) tracker;
      }
    }
  }

  static final class DrainedAdvice {
    private DrainedAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object batch) {
      ProducerHooks.onDrained(batch);
    }
  }

  static final class CompletionAdvice {
    private CompletionAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(
        @Advice.This Object batch,
        @Advice.Argument(0) long baseOffset,
        @Advice.Argument(1) long logAppendTime,
        @Advice.FieldValue("recordCount") int recordCount,
        @Advice.FieldValue("topicPartition") TopicPartition topicPartition) {
      ProducerHooks.onCompletionStart(
          batch, baseOffset, logAppendTime, recordCount, topicPartition);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
      ProducerHooks.onCompletionEnd();
    }
  }

  static final class ProduceRequestAdvice {
    private ProduceRequestAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(1) int destination, @Advice.Argument(4) List<?> batches) {
      ProducerHooks.onProduceRequest(destination, batches);
    }
  }
}
