package dev.klat.agent.consumer;

import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.Hook;
import dev.klat.agentcore.weave.Hook.Value;
import java.util.Arrays;
import java.util.List;

/**
 * The share consumer's hooks ({@code KafkaShareConsumer}, KIP-932), woven into kafka-clients 4.1 to
 * 4.4; {@code docs/agent-internals.md} lists every hook by version and section 11 of the latency
 * model says what the instants mean.
 *
 * <p>As for {@link ConsumerInstrumentation}: every hook is one call to a {@link ShareConsumerHooks}
 * method with read-only arguments; a hook whose method is missing in the version met is skipped
 * with one log line, and the others still apply.
 */
public final class ShareConsumerInstrumentation {

  static final String SHARE_CONSUMER = "org.apache.kafka.clients.consumer.KafkaShareConsumer";
  private static final String INTERNALS = "org.apache.kafka.clients.consumer.internals.";
  static final String SESSION_HANDLER = INTERNALS + "ShareSessionHandler";
  static final String REQUEST_MANAGER = INTERNALS + "ShareConsumeRequestManager";
  static final String COMPLETED_FETCH = INTERNALS + "ShareCompletedFetch";

  private static final String HOOKS = "dev.klat.agent.consumer.ShareConsumerHooks";
  private static final String OBJECT = "Ljava/lang/Object;";
  private static final String STRING = "Ljava/lang/String;";
  private static final String CONSUMER_RECORD =
      "Lorg/apache/kafka/clients/consumer/ConsumerRecord;";
  private static final String ACKNOWLEDGE_TYPE =
      "Lorg/apache/kafka/clients/consumer/AcknowledgeType;";
  private static final String CLIENT_RESPONSE = "Lorg/apache/kafka/clients/ClientResponse;";
  private static final String SHARE_FETCH_REQUEST_DATA =
      "Lorg/apache/kafka/common/message/ShareFetchRequestData;";

  private ShareConsumerInstrumentation() {}

  /** The share consumer's class plans. */
  public static List<ClassPlan> plans() {
    return Arrays.asList(
        ClassPlan.of(
            SHARE_CONSUMER,
            true,
            Arrays.asList(
                Hook.on("KafkaShareConsumer.poll", SHARE_CONSUMER, "poll")
                    .arguments("Ljava/time/Duration;")
                    .passing(Value.self())
                    .calling(HOOKS, "onPollEnter", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("KafkaShareConsumer.poll", SHARE_CONSUMER, "poll")
                    .arguments("Ljava/time/Duration;")
                    .atExit()
                    .passing(Value.returned(), Value.self())
                    .calling(HOOKS, "onPollReturn", "(" + OBJECT + OBJECT + ")V")
                    .build(),
                // acknowledge(record) is ACCEPT; the consumer hands each overload to its delegate,
                // so one application call runs one of these hooks. Normal exits only: a call that
                // throws (implicit mode, a record not of the last poll) acknowledged nothing.
                Hook.on("KafkaShareConsumer.acknowledge", SHARE_CONSUMER, "acknowledge")
                    .arguments(CONSUMER_RECORD)
                    .atExit()
                    .passing(Value.self(), Value.argument(0))
                    .calling(HOOKS, "onAcknowledge", "(" + OBJECT + OBJECT + ")V")
                    .build(),
                Hook.on("KafkaShareConsumer.acknowledge(type)", SHARE_CONSUMER, "acknowledge")
                    .arguments(CONSUMER_RECORD, ACKNOWLEDGE_TYPE)
                    .atExit()
                    .passing(Value.self(), Value.argument(0), Value.argument(1))
                    .calling(HOOKS, "onAcknowledgeTyped", "(" + OBJECT + OBJECT + OBJECT + ")V")
                    .build(),
                // 4.2 and later.
                Hook.on("KafkaShareConsumer.acknowledge(offset)", SHARE_CONSUMER, "acknowledge")
                    .arguments(STRING, "I", "J", ACKNOWLEDGE_TYPE)
                    .atExit()
                    .passing(
                        Value.self(),
                        Value.argument(0),
                        Value.argument(1),
                        Value.argument(2),
                        Value.argument(3))
                    .calling(
                        HOOKS, "onAcknowledgeOffset", "(" + OBJECT + STRING + "IJ" + OBJECT + ")V")
                    .build(),
                // Implicit acknowledgement: commitSync(), commitSync(Duration) and commitAsync()
                // accept every record of the last poll, as the next poll() does.
                Hook.on("KafkaShareConsumer.commitSync", SHARE_CONSUMER, "commitSync")
                    .anyArguments()
                    .passing(Value.self())
                    .calling(HOOKS, "onCommit", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("KafkaShareConsumer.commitAsync", SHARE_CONSUMER, "commitAsync")
                    .arguments()
                    .passing(Value.self())
                    .calling(HOOKS, "onCommit", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("KafkaShareConsumer.close", SHARE_CONSUMER, "close")
                    .anyArguments()
                    .atExit()
                    .passing(Value.self())
                    .calling(HOOKS, "onClose", "(" + OBJECT + ")V")
                    .build())),
        ClassPlan.of(
            SESSION_HANDLER,
            false,
            Arrays.asList(
                // F: the ShareFetch request's data, built on the network thread just before the
                // request is queued; its response handler receives the same object.
                Hook.on(
                        "ShareSessionHandler.newShareFetchBuilder",
                        SESSION_HANDLER,
                        "newShareFetchBuilder")
                    .anyArguments()
                    .atExit()
                    .passing(Value.returned())
                    .calling(HOOKS, "onShareFetchBuilt", "(" + OBJECT + ")V")
                    .build())),
        ClassPlan.of(
            REQUEST_MANAGER,
            true,
            Arrays.asList(
                Hook.on(
                        "ShareConsumeRequestManager.handleShareFetchSuccess",
                        REQUEST_MANAGER,
                        "handleShareFetchSuccess")
                    .arguments(null, SHARE_FETCH_REQUEST_DATA, CLIENT_RESPONSE)
                    .passing(Value.argument(1), Value.self())
                    .calling(HOOKS, "onShareFetchResponse", "(" + OBJECT + OBJECT + ")V")
                    .build(),
                Hook.on(
                        "ShareConsumeRequestManager.handleShareFetchSuccess",
                        REQUEST_MANAGER,
                        "handleShareFetchSuccess")
                    .arguments(null, SHARE_FETCH_REQUEST_DATA, CLIENT_RESPONSE)
                    .atExit()
                    .calling(HOOKS, "onShareFetchResponseDone", "()V")
                    .build(),
                // Every completed acknowledgement, with the broker's answer, passes here on the
                // network thread (whether or not the application registered a callback):
                // maybeSendShareAcknowledgeCommitCallbackEvent(Map) in 4.1,
                // maybeSendShareAcknowledgementEvent(Map, boolean, Optional) from 4.2.
                Hook.on(
                        "ShareConsumeRequestManager.maybeSendShareAcknowledgementEvent",
                        REQUEST_MANAGER,
                        "maybeSendShareAcknowledgementEvent")
                    .orNamed("maybeSendShareAcknowledgeCommitCallbackEvent")
                    .anyArguments()
                    .passing(Value.argument(0), Value.self())
                    .calling(HOOKS, "onAcknowledgementsCompleted", "(" + OBJECT + OBJECT + ")V")
                    .build())),
        ClassPlan.of(
            COMPLETED_FETCH,
            true,
            Arrays.asList(
                Hook.on("ShareCompletedFetch.<init>", COMPLETED_FETCH, "<init>")
                    .anyArguments()
                    .atExit()
                    .passing(Value.self())
                    .calling(HOOKS, "onCompletedFetchCreated", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("ShareCompletedFetch.parseRecord", COMPLETED_FETCH, "parseRecord")
                    .anyArguments()
                    .returning(CONSUMER_RECORD)
                    .atExit()
                    .passing(Value.returned(), Value.self())
                    .calling(HOOKS, "onRecordParsed", "(" + OBJECT + OBJECT + ")V")
                    .build())));
  }
}
