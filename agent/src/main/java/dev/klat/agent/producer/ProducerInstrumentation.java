package dev.klat.agent.producer;

import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.Hook;
import dev.klat.agentcore.weave.Hook.Value;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The producer hooks woven into kafka-clients 2.8 to 4.4.
 *
 * <p>Every hook binds to a method whose name and shape are the same in all supported versions
 * (checked against the released jars; see {@code docs/agent-internals.md}) and calls {@link
 * ProducerHooks}, where the logic lives and every failure is caught. A hook whose method is missing
 * in the version met is skipped with one log line; the others still apply.
 */
public final class ProducerInstrumentation {

  static final String PRODUCER = "org.apache.kafka.clients.producer.KafkaProducer";
  static final String BATCH = "org.apache.kafka.clients.producer.internals.ProducerBatch";
  static final String SENDER = "org.apache.kafka.clients.producer.internals.Sender";
  static final String CLUSTER_AND_WAIT_TIME =
      "org.apache.kafka.clients.producer.KafkaProducer$ClusterAndWaitTime";

  private static final String HOOKS = "dev.klat.agent.producer.ProducerHooks";
  private static final String RETRY_HOOKS = "dev.klat.agent.producer.RetryHooks";
  private static final String SPLIT_HOOKS = "dev.klat.agent.producer.SplitHooks";
  private static final String TRANSACTION_HOOKS = "dev.klat.agent.producer.TransactionHooks";
  private static final String DURATION = "Ljava/time/Duration;";
  private static final String BATCH_TYPE =
      "Lorg/apache/kafka/clients/producer/internals/ProducerBatch;";
  private static final String PARTITION_RESPONSE =
      "Lorg/apache/kafka/common/requests/ProduceResponse$PartitionResponse;";
  private static final String OBJECT = "Ljava/lang/Object;";
  private static final String RECORD = "Lorg/apache/kafka/clients/producer/ProducerRecord;";
  private static final String CALLBACK = "Lorg/apache/kafka/clients/producer/Callback;";
  private static final String LIST = "Ljava/util/List;";
  private static final String CLUSTER = "Lorg/apache/kafka/common/Cluster;";
  private static final String BYTES = "[B";
  private static final String BYTE_BUFFER = "Ljava/nio/ByteBuffer;";
  private static final String HEADERS = "[Lorg/apache/kafka/common/header/Header;";

  private ProducerInstrumentation() {}

  /** The producer's class plans. */
  public static List<ClassPlan> plans() {
    return Arrays.asList(
        ClassPlan.of(PRODUCER, true, producerHooks()),
        ClassPlan.of(
            BATCH,
            true,
            Arrays.asList(
                Hook.on("ProducerBatch.tryAppend", BATCH, "tryAppend")
                    .arguments("J", BYTES, BYTES, HEADERS, CALLBACK, "J")
                    .atExit()
                    .passing(Value.returned(), Value.self())
                    .calling(HOOKS, "onAppended", "(" + OBJECT + OBJECT + ")V")
                    .build(),
                Hook.on("ProducerBatch.split", BATCH, "split")
                    .arguments("I")
                    .passing(Value.self())
                    .calling(SPLIT_HOOKS, "onSplitStart", "(" + OBJECT + ")V")
                    .build(),
                Hook.on("ProducerBatch.tryAppendForSplit", BATCH, "tryAppendForSplit")
                    .arguments("J", BYTE_BUFFER, BYTE_BUFFER, HEADERS, null)
                    .atExit()
                    .passing(Value.returned(), Value.self())
                    .calling(SPLIT_HOOKS, "onSplitAppended", "(Z" + OBJECT + ")V")
                    .build(),
                Hook.on("ProducerBatch.split", BATCH, "split")
                    .arguments("I")
                    .atExit()
                    .calling(SPLIT_HOOKS, "onSplitEnd", "()V")
                    .build(),
                Hook.on("ProducerBatch.drained", BATCH, "drained")
                    .arguments("J")
                    .atExit()
                    .passing(Value.self())
                    .calling(HOOKS, "onDrained", "(" + OBJECT + ")V")
                    .build(),
                completeFutureAndFireCallbacks()
                    .atEnter()
                    .passing(
                        Value.self(),
                        Value.argument(0),
                        Value.argument(1),
                        Value.argument(2),
                        Value.field("recordCount"))
                    .calling(HOOKS, "onCompletionStart", "(" + OBJECT + "JJ" + OBJECT + "I)V")
                    .build(),
                completeFutureAndFireCallbacks()
                    .atExit()
                    .passing(Value.self())
                    .calling(HOOKS, "onCompletionEnd", "(" + OBJECT + ")V")
                    .build())),
        ClassPlan.of(
            SENDER,
            false,
            Arrays.asList(
                Hook.on("Sender.sendProduceRequest", SENDER, "sendProduceRequest")
                    .arguments(null, "I", null, null, LIST)
                    .passing(Value.argument(1), Value.argument(4), Value.field("client"))
                    .calling(HOOKS, "onProduceRequest", "(I" + LIST + OBJECT + ")V")
                    .build(),
                // Called only for a partition response with an error; true re-enqueues the batch.
                // The same private (ProducerBatch, PartitionResponse, long) from 2.8 to 4.4, while
                // completeBatch, its caller, gained an argument in 3.7.
                Hook.on("Sender.canRetry", SENDER, "canRetry")
                    .arguments(BATCH_TYPE, PARTITION_RESPONSE, "J")
                    .atExit()
                    .passing(Value.returned(), Value.argument(0), Value.argument(1))
                    .calling(RETRY_HOOKS, "onRetryDecided", "(Z" + OBJECT + OBJECT + ")V")
                    .build())),
        // The metadata wait doSend() measured: built once per send() by waitOnMetadata, with 0
        // when the metadata was cached, the same (Cluster, long) shape from 2.8 to 4.4.
        ClassPlan.of(
            CLUSTER_AND_WAIT_TIME,
            false,
            Collections.singletonList(
                Hook.on("KafkaProducer.ClusterAndWaitTime", CLUSTER_AND_WAIT_TIME, "<init>")
                    .arguments(CLUSTER, "J")
                    .atExit()
                    .passing(Value.argument(1))
                    .calling(HOOKS, "onMetadataWaited", "(J)V")
                    .build())));
  }

  // Enter and exit hooks must match the same method. Its arguments are the base offset, the log
  // append time and the failure: a RuntimeException in 2.8, a Function from 3.0 (checked with javap
  // on 2.8.2, 3.1.2, 3.6.2, 3.9.2, 4.3.1 and 4.4.0: (long, long, ...) in each).
  private static Hook.Builder completeFutureAndFireCallbacks() {
    return Hook.on(
            "ProducerBatch.completeFutureAndFireCallbacks", BATCH, "completeFutureAndFireCallbacks")
        .arguments("J", "J", null);
  }

  private static List<Hook> producerHooks() {
    List<Hook> hooks = new ArrayList<Hook>(Arrays.asList(sendHooks()));
    hooks.addAll(Arrays.asList(transactionHooks()));
    return hooks;
  }

  // The end of a transaction: public commitTransaction() and abortTransaction(), and the private
  // close(Duration, boolean) that every public close() calls, the same from 2.8 to 4.4 (javap on
  // 2.8.2, 3.1.2, 3.6.2, 3.9.2, 4.3.1 and 4.4.0). Normal returns only: see TransactionHooks.
  private static Hook[] transactionHooks() {
    String producerOnly = "(" + OBJECT + ")V";
    return new Hook[] {
      Hook.on("KafkaProducer.commitTransaction", PRODUCER, "commitTransaction")
          .arguments()
          .atExit()
          .passing(Value.self())
          .calling(TRANSACTION_HOOKS, "onCommitted", producerOnly)
          .build(),
      Hook.on("KafkaProducer.abortTransaction", PRODUCER, "abortTransaction")
          .arguments()
          .atExit()
          .passing(Value.self())
          .calling(TRANSACTION_HOOKS, "onAborted", producerOnly)
          .build(),
      Hook.on("KafkaProducer.close", PRODUCER, "close")
          .arguments(DURATION, "Z")
          .atExit()
          .passing(Value.self())
          .calling(TRANSACTION_HOOKS, "onClosed", producerOnly)
          .build()
    };
  }

  private static Hook[] sendHooks() {
    return new Hook[] {
      Hook.on("KafkaProducer.send", PRODUCER, "send")
          .arguments(RECORD, CALLBACK)
          .passing(Value.self(), Value.argument(0))
          .calling(HOOKS, "onSend", "(" + OBJECT + RECORD + ")" + RECORD)
          .storingResultInto(0)
          .build(),
      Hook.on("KafkaProducer.send", PRODUCER, "send")
          .arguments(RECORD, CALLBACK)
          .atExit()
          .passing(Value.returned())
          .calling(HOOKS, "onSendReturn", "(" + OBJECT + ")V")
          .build()
    };
  }

  /**
   * Whether hooks in the agent's own class loader link against the kafka-clients that {@code
   * applicationLoader} uses: true for an application on the class path, false for a Spring Boot
   * executable jar or an application server, whose kafka-clients the agent's loader does not see.
   */
  public static boolean helpersCanLink(ClassLoader applicationLoader) {
    String probe = "org.apache.kafka.clients.producer.Callback";
    try {
      Class<?> seenByHelpers =
          Class.forName(probe, false, ProducerInstrumentation.class.getClassLoader());
      return seenByHelpers == Class.forName(probe, false, applicationLoader);
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
