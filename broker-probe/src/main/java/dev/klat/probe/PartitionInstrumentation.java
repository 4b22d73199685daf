package dev.klat.probe;

import dev.klat.agentcore.weave.ClassPlan;
import dev.klat.agentcore.weave.Hook;
import dev.klat.agentcore.weave.Hook.Value;
import java.util.Arrays;

/**
 * The probe's hooks, all on {@code kafka.cluster.Partition}, the one broker class whose shape is
 * the same from Kafka 3.6 to 4.4 (the log classes moved from Scala to Java in 4.1): the exit of
 * {@code appendRecordsToLeader}, when a batch is in the leader's log, and the exit of the private
 * {@code maybeIncrementLeaderHW}, through which every high-watermark advance of a leader passes
 * (after an append when the ISR is the leader alone, after a follower's fetch otherwise). Both read
 * the partition's own fields {@code topicPartition}, {@code leaderEpoch} and {@code localBrokerId}.
 * The entry and exit of {@code updateFollowerFetchState}, which calls {@code
 * maybeIncrementLeaderHW} on the same thread, tell an advance which follower's fetch moved it. The
 * exit of its constructor tells the probe its broker's id before any append, so that an idle broker
 * reports its coverage and the collector knows its probe is alive before the first record. Argument
 * and return types are matched by count and kind only, since their classes differ by version; the
 * hooks take them as {@code Object}.
 */
final class PartitionInstrumentation {

  static final String PARTITION_CLASS = "kafka.cluster.Partition";

  private static final String HOOKS = "dev/klat/probe/PartitionHooks";
  private static final String OBJECT = "Ljava/lang/Object;";

  private PartitionInstrumentation() {}

  static ClassPlan plan() {
    Hook appended =
        Hook.on("Partition.appendRecordsToLeader", PARTITION_CLASS, "appendRecordsToLeader")
            .anyArguments()
            .returning("Lorg/apache/kafka/storage/internals/log/LogAppendInfo;")
            .atExit()
            .passing(
                Value.returned(),
                Value.field("topicPartition"),
                Value.field("leaderEpoch"),
                Value.field("localBrokerId"))
            .calling(HOOKS, "appended", "(" + OBJECT + OBJECT + "II)V")
            .build();
    Hook highWatermark =
        Hook.on("Partition.maybeIncrementLeaderHW", PARTITION_CLASS, "maybeIncrementLeaderHW")
            .arguments(null, "J")
            .returning("Z")
            .atExit()
            .passing(
                Value.returned(),
                Value.field("topicPartition"),
                Value.field("leaderEpoch"),
                Value.field("localBrokerId"),
                Value.argument(0))
            .calling(HOOKS, "highWatermarkChecked", "(Z" + OBJECT + "II" + OBJECT + ")V")
            .build();
    // Replica moved from kafka.cluster (Scala) to org.apache.kafka.server.replica in 4.1.
    String[] followerFetchArguments = {null, null, "J", "J", "J", "J"};
    Hook followerFetchStarted =
        Hook.on("Partition.updateFollowerFetchState", PARTITION_CLASS, "updateFollowerFetchState")
            .arguments(followerFetchArguments)
            .returning("V")
            .atEnter()
            .passing(Value.argument(0), Value.field("topicPartition"))
            .calling(HOOKS, "followerFetchStarted", "(" + OBJECT + OBJECT + ")V")
            .build();
    Hook followerFetchEnded =
        Hook.on(
                "Partition.updateFollowerFetchState (exit)",
                PARTITION_CLASS,
                "updateFollowerFetchState")
            .arguments(followerFetchArguments)
            .returning("V")
            .atExit()
            .passing()
            .calling(HOOKS, "followerFetchEnded", "()V")
            .build();
    Hook created =
        Hook.on("Partition.<init>", PARTITION_CLASS, "<init>")
            .anyArguments()
            .atExit()
            .passing(Value.field("localBrokerId"))
            .calling(HOOKS, "created", "(I)V")
            .build();
    return ClassPlan.of(
        PARTITION_CLASS,
        false,
        Arrays.asList(appended, highWatermark, followerFetchStarted, followerFetchEnded, created));
  }
}
