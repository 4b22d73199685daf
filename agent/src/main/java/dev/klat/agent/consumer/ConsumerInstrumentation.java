package dev.klat.agent.consumer;

import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.Hook;
import dev.klat.agentcore.weave.Hook.Value;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The consumer hooks woven into kafka-clients 2.8 to 4.4, classic and new ({@code
 * group.protocol=consumer}) consumers alike; {@code docs/agent-internals.md} lists every hook by
 * version.
 *
 * <p>Every hook is one call to a {@link ConsumerHooks} method with read-only arguments, fields of
 * the instrumented class and the returned value. A hook whose method or field is missing in the
 * version met is skipped with one log line; the others still apply.
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

  // What ConsumerRecords.iterator() and records(String) iterate with (2.8 to 4.4): an iterable
  // over the partitions' record lists and its iterator, an anonymous AbstractIterator.
  static final String RECORDS_ITERABLE =
      "org.apache.kafka.clients.consumer.ConsumerRecords$ConcatenatedIterable";
  static final String RECORDS_ITERATOR = RECORDS_ITERABLE + "$1";

  private static final String HOOKS = "dev.klat.agent.consumer.ConsumerHooks";
  private static final String OBJECT = "Ljava/lang/Object;";
  private static final String LIST = "Ljava/util/List;";
  private static final String CONSUMER_RECORD =
      "Lorg/apache/kafka/clients/consumer/ConsumerRecord;";
  private static final String TOPIC_PARTITION = "Lorg/apache/kafka/common/TopicPartition;";
  private static final String CLIENT_RESPONSE = "Lorg/apache/kafka/clients/ClientResponse;";
  private static final String FETCH_REQUEST_DATA_DESCRIPTOR =
      "L" + FETCH_REQUEST_DATA.replace('.', '/') + ";";

  private ConsumerInstrumentation() {}

  /** The consumer's class plans. */
  public static List<ClassPlan> plans() {
    return Arrays.asList(
        ClassPlan.of(
            CONSUMER,
            true,
            Arrays.asList(
                // poll(Duration) in every version, poll(long) up to 3.9: one argument either way.
                Hook.on("KafkaConsumer.poll", CONSUMER, "poll")
                    .arguments((String) null)
                    .passing(Value.self())
                    .calling(HOOKS, "onPollEnter", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("KafkaConsumer.poll", CONSUMER, "poll")
                    .arguments((String) null)
                    .atExit()
                    .passing(Value.returned(), Value.self())
                    .calling(HOOKS, "onPollReturn", "(" + OBJECT + OBJECT + ")V")
                    .build())),
        ClassPlan.of(
            FETCH_REQUEST_DATA,
            true,
            Arrays.asList(
                Hook.on("FetchSessionHandler.FetchRequestData.<init>", FETCH_REQUEST_DATA, "<init>")
                    .anyArguments()
                    .atExit()
                    .passing(Value.self())
                    .calling(HOOKS, "onFetchRequestCreated", "(" + OBJECT + ")V")
                    .build())),
        ClassPlan.of(
            FETCH_LISTENER,
            false,
            Arrays.asList(
                Hook.on("Fetcher$1.onSuccess", FETCH_LISTENER, "onSuccess")
                    .arguments(CLIENT_RESPONSE)
                    .passing(Value.field("val$data"))
                    .calling(HOOKS, "onFetchResponse", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("Fetcher$1.onSuccess", FETCH_LISTENER, "onSuccess")
                    .arguments(CLIENT_RESPONSE)
                    .atExit()
                    .calling(HOOKS, "onFetchResponseDone", "()V")
                    .build())),
        ClassPlan.of(
            ABSTRACT_FETCH,
            false,
            Arrays.asList(
                // handleFetchResponse in 3.5 and 3.6, handleFetchSuccess from 3.7.
                Hook.on("AbstractFetch.handleFetchSuccess", ABSTRACT_FETCH, "handleFetchSuccess")
                    .orNamed("handleFetchResponse")
                    .arguments(null, FETCH_REQUEST_DATA_DESCRIPTOR, CLIENT_RESPONSE)
                    .passing(Value.argument(1))
                    .calling(HOOKS, "onFetchResponse", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("AbstractFetch.handleFetchSuccess", ABSTRACT_FETCH, "handleFetchSuccess")
                    .orNamed("handleFetchResponse")
                    .arguments(null, FETCH_REQUEST_DATA_DESCRIPTOR, CLIENT_RESPONSE)
                    .atExit()
                    .calling(HOOKS, "onFetchResponseDone", "()V")
                    .build())),
        completedFetch(COMPLETED_FETCH_OLD, false),
        completedFetch(COMPLETED_FETCH, true),
        ClassPlan.of(
            RECORDS_ITERABLE,
            false,
            Arrays.asList(
                Hook.on(
                        "ConsumerRecords.ConcatenatedIterable.iterator",
                        RECORDS_ITERABLE,
                        "iterator")
                    .arguments()
                    .atExit()
                    .passing(Value.returned(), Value.field("iterables"))
                    .calling(HOOKS, "onRecordsIterator", "(" + OBJECT + OBJECT + ")V")
                    .build())),
        // The iterator holds its cursor (section 9 of the latency model: the records taken).
        ClassPlan.of(
            RECORDS_ITERATOR,
            true,
            Arrays.asList(
                Hook.on(
                        "ConsumerRecords.ConcatenatedIterable$1.makeNext",
                        RECORDS_ITERATOR,
                        "makeNext")
                    .arguments()
                    .returning(CONSUMER_RECORD)
                    .atExit()
                    .passing(Value.returned(), Value.self())
                    .calling(HOOKS, "onRecordTaken", "(" + OBJECT + OBJECT + ")V")
                    .build())));
  }

  // The class is Fetcher$CompletedFetch up to 3.4 and CompletedFetch from 3.5; a JVM loads one.
  // From 3.5 it builds each record itself (parseRecord), and the agent notes the record there;
  // up to 3.4 Fetcher does, and the poll() exit reads the records instead.
  private static ClassPlan completedFetch(String className, boolean parsesRecords) {
    List<Hook> hooks = new ArrayList<>();
    if (parsesRecords) {
      hooks.add(
          Hook.on("CompletedFetch.parseRecord", className, "parseRecord")
              .anyArguments()
              .returning(CONSUMER_RECORD)
              .atExit()
              .passing(Value.returned(), Value.self())
              .calling(HOOKS, "onRecordParsed", "(" + OBJECT + OBJECT + ")V")
              .build());
    }
    hooks.addAll(
        Arrays.asList(
            Hook.on("CompletedFetch.<init>", className, "<init>")
                .anyArguments()
                .atExit()
                .passing(Value.self())
                .calling(HOOKS, "onCompletedFetchCreated", "(" + OBJECT + ")V")
                .build(),
            Hook.on("CompletedFetch.fetchRecords", className, "fetchRecords")
                .anyArguments()
                .returning(LIST)
                .atExit()
                .passing(
                    Value.returned(),
                    Value.self(),
                    Value.field("partition"),
                    Value.field("partitionData"))
                .calling(
                    HOOKS,
                    "onRecordsReturned",
                    "(" + LIST + OBJECT + TOPIC_PARTITION + OBJECT + ")V")
                .build()));
    return ClassPlan.of(className, true, hooks);
  }
}
