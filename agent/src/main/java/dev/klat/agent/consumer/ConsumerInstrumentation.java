package dev.klat.agent.consumer;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.klat.agent.AdviceErrors;
import dev.klat.agent.config.AgentLog;
import dev.klat.agent.producer.StateHolder;
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
import org.apache.kafka.common.TopicPartition;

/**
 * Weaves the consumer hooks into kafka-clients 2.8 to 4.4, classic and new ({@code
 * group.protocol=consumer}) consumers alike; {@code docs/agent-internals.md} lists every hook by
 * version.
 *
 * <p>Every advice is one call to a {@link ConsumerHooks} method with read-only arguments, fields of
 * the instrumented class and the return value, so that it can be woven by any bytecode tool. A hook
 * whose method or field is missing in the version met is skipped with one log line; the others
 * still apply.
 */
public final class ConsumerInstrumentation {

  static final String CONSUMER = "org.apache.kafka.clients.consumer.KafkaConsumer";
  static final String FETCH_REQUEST_DATA =
      "org.apache.kafka.clients.FetchSessionHandler$FetchRequestData";
  private static final String INTERNALS = "org.apache.kafka.clients.consumer.internals.";
  // 2.8 to 3.4: the fetch response listener is the first anonymous class of Fetcher.
  static final String FETCH_LISTENER = INTERNALS + "Fetcher$1";
  // 3.5 and later: the response handler is shared by the classic Fetcher and, from 3.7, the new
  // consumer's FetchRequestManager.
  static final String ABSTRACT_FETCH = INTERNALS + "AbstractFetch";
  static final String COMPLETED_FETCH_OLD = INTERNALS + "Fetcher$CompletedFetch";
  static final String COMPLETED_FETCH = INTERNALS + "CompletedFetch";
  private static final String STATE_FIELD = "klat$state";

  static final ElementMatcher<MethodDescription> POLL =
      named("poll")
          .and(takesArguments(1))
          .and(takesArgument(0, long.class).or(takesArgument(0, named("java.time.Duration"))));
  static final ElementMatcher<MethodDescription> CONSTRUCTOR =
      isConstructor().and(not(isSynthetic()));
  static final ElementMatcher<MethodDescription> LISTENER_SUCCESS =
      named("onSuccess")
          .and(takesArguments(1))
          .and(takesArgument(0, named("org.apache.kafka.clients.ClientResponse")));
  // handleFetchResponse in 3.5 and 3.6, handleFetchSuccess from 3.7; same arguments.
  static final ElementMatcher<MethodDescription> HANDLE_RESPONSE =
      namedOneOf("handleFetchResponse", "handleFetchSuccess")
          .and(takesArguments(3))
          .and(takesArgument(1, named(FETCH_REQUEST_DATA)))
          .and(takesArgument(2, named("org.apache.kafka.clients.ClientResponse")));
  static final ElementMatcher<MethodDescription> FETCH_RECORDS =
      named("fetchRecords").and(returns(List.class)).and(not(isSynthetic()));

  private static final Advice.ExceptionHandler REPORT_FAILURE = reportFailure();

  private ConsumerInstrumentation() {}

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

  /** Adds the consumer transformations to {@code builder}. */
  public static AgentBuilder install(AgentBuilder builder, final AgentLog log) {
    return builder
        .type(named(CONSUMER))
        .transform(
            (b, type, classLoader, module, protectionDomain) -> {
              if (!helpersCanLink(classLoader, log)) {
                return b;
              }
              DynamicType.Builder<?> withState = withStateField(b);
              withState =
                  hook(withState, type, POLL, PollEnterAdvice.class, "KafkaConsumer.poll", log);
              return hook(withState, type, POLL, PollExitAdvice.class, "KafkaConsumer.poll", log);
            })
        .type(named(FETCH_REQUEST_DATA))
        .transform(
            (b, type, classLoader, module, protectionDomain) ->
                helpersCanLink(classLoader, log)
                    ? hook(
                        withStateField(b),
                        type,
                        CONSTRUCTOR,
                        FetchRequestCreatedAdvice.class,
                        "FetchSessionHandler.FetchRequestData.<init>",
                        log)
                    : b)
        .type(named(FETCH_LISTENER))
        .transform(
            (b, type, classLoader, module, protectionDomain) -> {
              if (!helpersCanLink(classLoader, log)
                  || !hasField(type, "val$data", "Fetcher$1 (fetch response listener)", log)) {
                return b;
              }
              DynamicType.Builder<?> hooked =
                  hook(
                      b,
                      type,
                      LISTENER_SUCCESS,
                      ListenerSuccessEnterAdvice.class,
                      "Fetcher$1.onSuccess",
                      log);
              return hook(
                  hooked,
                  type,
                  LISTENER_SUCCESS,
                  HandlerExitAdvice.class,
                  "Fetcher$1.onSuccess",
                  log);
            })
        .type(named(ABSTRACT_FETCH))
        .transform(
            (b, type, classLoader, module, protectionDomain) -> {
              if (!helpersCanLink(classLoader, log)) {
                return b;
              }
              DynamicType.Builder<?> hooked =
                  hook(
                      b,
                      type,
                      HANDLE_RESPONSE,
                      HandleResponseEnterAdvice.class,
                      "AbstractFetch.handleFetchSuccess",
                      log);
              return hook(
                  hooked,
                  type,
                  HANDLE_RESPONSE,
                  HandlerExitAdvice.class,
                  "AbstractFetch.handleFetchSuccess",
                  log);
            })
        .type(namedOneOf(COMPLETED_FETCH_OLD, COMPLETED_FETCH))
        .transform(
            (b, type, classLoader, module, protectionDomain) -> {
              if (!helpersCanLink(classLoader, log)) {
                return b;
              }
              DynamicType.Builder<?> withState = withStateField(b);
              withState =
                  hook(
                      withState,
                      type,
                      CONSTRUCTOR,
                      CompletedFetchCreatedAdvice.class,
                      "CompletedFetch.<init>",
                      log);
              if (!hasField(type, "partition", "CompletedFetch", log)
                  || !hasField(type, "partitionData", "CompletedFetch", log)) {
                return withState;
              }
              return hook(
                  withState,
                  type,
                  FETCH_RECORDS,
                  FetchRecordsAdvice.class,
                  "CompletedFetch.fetchRecords",
                  log);
            });
  }

  /**
   * The hooks' helpers live in the agent's class loader and link against kafka-clients from there;
   * a class loader whose kafka-clients is another copy is left untouched, with one line.
   */
  static boolean helpersCanLink(ClassLoader applicationLoader, AgentLog log) {
    String probe = "org.apache.kafka.clients.consumer.ConsumerRecord";
    try {
      Class<?> seenByHelpers =
          Class.forName(probe, false, ConsumerInstrumentation.class.getClassLoader());
      Class<?> seenByApplication = Class.forName(probe, false, applicationLoader);
      if (seenByHelpers == seenByApplication) {
        return true;
      }
    } catch (ClassNotFoundException | LinkageError e) {
      // Falls through to the warning.
    }
    log.warnOnce(
        "consumer-helpers-cannot-link-" + System.identityHashCode(applicationLoader),
        "kafka-clients in class loader "
            + applicationLoader
            + " is not visible to the klat agent (for example a Spring Boot executable jar):"
            + " its consumers are not instrumented");
    return false;
  }

  private static boolean hasField(TypeDescription type, String field, String what, AgentLog log) {
    if (!type.getDeclaredFields().filter(named(field)).isEmpty()) {
      return true;
    }
    log.warnOnce(
        "missing-field-" + type.getName() + "-" + field,
        "kafka-clients "
            + what
            + " "
            + type.getName()
            + " has no field "
            + field
            + ": its hooks are skipped, the rest of the agent still works");
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

  static final class PollEnterAdvice {
    private PollEnterAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.This Object consumer) {
      ConsumerHooks.onPollEnter(consumer);
    }
  }

  static final class PollExitAdvice {
    private PollExitAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object consumer, @Advice.Return Object records) {
      ConsumerHooks.onPollExit(consumer, records);
    }
  }

  static final class FetchRequestCreatedAdvice {
    private FetchRequestCreatedAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object requestData) {
      ConsumerHooks.onFetchRequestCreated(requestData);
    }
  }

  static final class ListenerSuccessEnterAdvice {
    private ListenerSuccessEnterAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("val$data") Object requestData) {
      ConsumerHooks.onFetchResponse(requestData);
    }
  }

  static final class HandleResponseEnterAdvice {
    private HandleResponseEnterAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(1) Object requestData) {
      ConsumerHooks.onFetchResponse(requestData);
    }
  }

  static final class HandlerExitAdvice {
    private HandlerExitAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit() {
      ConsumerHooks.onFetchResponseDone();
    }
  }

  static final class CompletedFetchCreatedAdvice {
    private CompletedFetchCreatedAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.This Object completedFetch) {
      ConsumerHooks.onCompletedFetchCreated(completedFetch);
    }
  }

  static final class FetchRecordsAdvice {
    private FetchRecordsAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(
        @Advice.This Object completedFetch,
        @Advice.FieldValue("partition") TopicPartition partition,
        @Advice.FieldValue("partitionData") Object partitionData,
        @Advice.Return List<?> records) {
      ConsumerHooks.onRecordsFetched(completedFetch, partition, partitionData, records);
    }
  }
}
