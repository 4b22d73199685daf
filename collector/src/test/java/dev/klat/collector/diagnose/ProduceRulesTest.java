package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.Tails.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.probe.CommitWaits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The produce rules on hand-built tails: each names its knob when its evidence holds, and only
 * then.
 */
class ProduceRulesTest {
  @Test
  void batchesThatLeaveWithOneRecordAfterLingerNameLingerMs() {
    ProducerEvidence lingering =
        new ProducerEvidence(100, 16_384, 33_554_432, 5, 1, 120, 1, -1, -1, -1, true);
    DiagnosisReport report = diagnose(producerTail(10, lingering, 101, 2, 3, 1, 3));

    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("produce");
    assertThat(top.knob()).isEqualTo("linger.ms");
    assertThat(top.tailShare()).isCloseTo(100.0 / 110, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(top.evidence())
        .containsEntry("linger.ms", 100L)
        .containsEntry("records per batch, tail median", 1L);
    assertThat(top.suggestion()).contains("Lower linger.ms").contains("1 record(s)");
    assertThat(report.unexplained()).isNull();
  }

  @Test
  void settingsThatDifferAcrossProducersAreAllShown() {
    ProducerEvidence prompt =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 1, 120, 1, -1, -1, -1, true);
    ProducerEvidence lingering =
        new ProducerEvidence(500, 16_384, 33_554_432, 5, 1, 120, 1, -1, -1, -1, true);
    List<TailRecord> records = new ArrayList<>();
    records.addAll(
        tail(3, tailRecord(new double[] {6, 2, 3, 1, 3}, 0, 1, prompt, DEFAULT_CONSUMER)));
    records.addAll(
        tail(7, tailRecord(new double[] {501, 2, 3, 1, 3}, 0, 1, lingering, DEFAULT_CONSUMER)));

    Finding top = diagnose(records).findings().get(0);

    assertThat(top.knob()).isEqualTo("linger.ms");
    assertThat(top.evidence())
        .containsEntry("linger.ms", "5, 500")
        .containsEntry("batch.size", 16_384L);
  }

  @Test
  void fullBatchesThatStillWaitNameBatchSizeAndNotLinger() {
    ProducerEvidence full =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 160, 16_300, 1, -1, -1, -1, true);
    DiagnosisReport report = diagnose(producerTail(10, full, 80, 5, 5, 5, 5));

    assertKnobs(report, "batch.size");
    assertExplains(report, 0.075);
    assertThat(report.findings().get(0).evidence()).containsKey("buffer.memory");
  }

  @Test
  void aBatchWithNoRoomForAnotherOfItsRecordsIsFullThoughFarFromBatchSize() {
    // Three 190-byte records in a 700-byte batch.size: 570 bytes, 81%, and a fourth would not fit.
    ProducerEvidence noRoom =
        new ProducerEvidence(0, 700, 33_554_432, 1, 3, 570, 1, -1, 0, 1, true);
    DiagnosisReport report = diagnose(producerTail(10, noRoom, 80, 5, 5, 5, 5));

    assertKnobs(report, "batch.size");
    assertExplains(report, 0.080);
  }

  @Test
  void aSendThatBlockedBeforeTheAppendNamesSendBlockedAndLingerKeepsOnlyTheTimeInTheBatch() {
    // 80 of the 100 ms of produce were spent in send(), waiting for buffer.memory; the batch of one
    // record then lingered its 5 ms, and left at once when linger.ms ran out.
    ProducerEvidence blocked =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 1, 120, 1, 80 * MS, -1, -1, true);
    DiagnosisReport report = diagnose(producerTail(10, blocked, 100, 2, 3, 1, 3));

    assertKnobs(report, "send() blocked (buffer.memory, metadata)");
    assertExplains(report, 0.080);
    assertThat(report.findings().get(0).evidence())
        .containsEntry("in send() before the record was in its batch, tail mean", "80.0 ms")
        .containsEntry("buffer.memory", 33_554_432L);
  }

  @Test
  void aSendThatWaitedForMetadataNamesTheMetadataWaitAndNotBufferMemory() {
    // 80 of the 100 ms of produce were in send(), 78 of them waiting for the topic's metadata (in
    // Kafka's whole milliseconds); the 2 ms left are under the 10% a finding needs.
    ProducerEvidence waited =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 1, 120, 1, 80 * MS, -1, -1, true, 78 * MS);
    DiagnosisReport report = diagnose(producerTail(10, waited, 100, 2, 3, 1, 3));

    assertKnobs(report, "metadata wait");
    assertExplains(report, 0.078);
    assertThat(report.findings().get(0).evidence())
        .containsEntry("in send() waiting for the topic's metadata, tail mean", "78.0 ms")
        .containsEntry("tail records that waited for metadata", "10 of 10");
    assertThat(report.findings().get(0).suggestion())
        .contains("partitionsFor")
        .contains("metadata.max.idle.ms");
  }

  @Test
  void aSendThatHadItsMetadataAndStillBlockedNamesBufferMemory() {
    ProducerEvidence full =
        new ProducerEvidence(5, 16_384, 1_024, 5, 1, 120, 1, 80 * MS, -1, -1, true, 0);
    DiagnosisReport report = diagnose(producerTail(10, full, 100, 2, 3, 1, 3));

    assertKnobs(report, "buffer.memory");
    assertExplains(report, 0.080);
    assertThat(report.findings().get(0).evidence())
        .containsEntry("in send() after the metadata, tail mean", "80.0 ms")
        .containsEntry("buffer.memory", 1_024L);
  }

  @Test
  void aWaitForMetadataLongerThanTheAppendWaitExplainsOnlyTheAppendWait() {
    // Kafka's millisecond clock against the agent's nanoseconds: never more than the append wait.
    ProducerEvidence waited =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 1, 120, 1, 60 * MS, -1, -1, true, 61 * MS);
    DiagnosisReport report = diagnose(producerTail(10, waited, 100, 2, 3, 1, 3));

    assertKnobs(report, "metadata wait");
    assertExplains(report, 0.060);
  }

  @Test
  void metadataBufferAndAnOlderAgentsUnsplitWaitAreWeighedApart() {
    // Half the tail from producers whose agent splits the wait (30 ms metadata, 40 ms buffer), half
    // from an older agent (70 ms blocked, unsplit): each finding explains its own records' time.
    ProducerEvidence split =
        new ProducerEvidence(0, 16_384, 33_554_432, 5, 1, 120, 1, 70 * MS, -1, -1, true, 30 * MS);
    ProducerEvidence unsplit =
        new ProducerEvidence(0, 16_384, 33_554_432, 5, 1, 120, 1, 70 * MS, -1, -1, true);
    List<TailRecord> records = new ArrayList<>();
    records.addAll(producerTail(5, split, 80, 2, 3, 1, 3));
    records.addAll(producerTail(5, unsplit, 80, 2, 3, 1, 3));
    DiagnosisReport report = diagnose(records);

    assertKnobs(
        report, "send() blocked (buffer.memory, metadata)", "buffer.memory", "metadata wait");
    assertThat(report.findings())
        .extracting(Finding::explainedSeconds)
        .containsExactly(0.035, 0.020, 0.015);
  }

  @Test
  void batchesOfOneRecordFromManyPartitionsPerRequestSayTheRecordsAreSpreadThin() {
    ProducerEvidence spread =
        new ProducerEvidence(100, 16_384, 33_554_432, 5, 1, 120, 1, -1, 0, 24, true);
    Finding top = diagnose(producerTail(10, spread, 101, 2, 3, 1, 3)).findings().get(0);

    assertThat(top.knob()).isEqualTo("linger.ms");
    assertThat(top.evidence()).containsEntry("partitions per produce request, tail median", 24L);
    assertThat(top.suggestion()).contains("Each request carried 24 partitions' batches");
  }

  @Test
  void batchesNotFullThatWaitedPastLingerForTheLastRequestSlotNameMaxInFlight() {
    // linger.ms=5, a batch of 3 records, 4 of 5 requests already in flight when it was sent: the
    // 5 ms of linger and 75 ms more waiting for a slot.
    ProducerEvidence waiting =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 3, 360, 1, -1, 4, 1, true);
    DiagnosisReport report = diagnose(producerTail(10, waiting, 80, 5, 5, 5, 5));

    assertKnobs(report, "max.in.flight.requests.per.connection");
    assertExplains(report, 0.075);
    assertThat(report.findings().get(0).evidence())
        .containsEntry("max.in.flight.requests.per.connection", 5L)
        .containsEntry(
            "requests already in flight when the record's request was sent, tail median", 4L);
  }

  @Test
  void aSlotWaitWhileTheLeadersHighWatermarkWaitedForAFollowerNamesThatFollower() {
    // The same 75 ms wait for the last slot, acks=all, and broker 1's probe saw its high watermark
    // wait 75 ms of them for broker 3's fetch: the requests in flight were held by broker 3.
    ProducerEvidence waiting =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 3, 360, 1, -1, 4, 1, true);
    CommitWaits waits =
        (leader, from, to) ->
            leader == 1 && from == 1_000 - 75 * MS && to == 1_000
                ? new CommitWaits.CommitWait(75 * MS, 3)
                : null;
    DiagnosisReport report =
        diagnose(producerTail(10, waiting, 80, 5, 5, 5, 5), BrokerTimings.NONE, waits);

    assertKnobs(report, "broker 3 follower fetch");
    assertExplains(report, 0.075);
    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("produce");
    assertThat(top.evidence())
        .containsEntry(
            "waiting for a request slot during broker 1's high-watermark waits, mean of those",
            "75.0 ms")
        .containsEntry("the waits ended by", "broker 3's fetch (broker probe)");
    assertThat(top.suggestion())
        .contains("waiting for its high watermark")
        .contains("Broker 3 was the follower");
  }

  @Test
  void aSlotWaitLongerThanTheFollowersHoldLeavesTheRestOnMaxInFlight() {
    ProducerEvidence waiting =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 3, 360, 1, -1, 4, 1, true);
    CommitWaits waits = (leader, from, to) -> new CommitWaits.CommitWait(40 * MS, 3);
    DiagnosisReport report =
        diagnose(producerTail(10, waiting, 80, 5, 5, 5, 5), BrokerTimings.NONE, waits);

    assertKnobs(report, "broker 3 follower fetch", "max.in.flight.requests.per.connection");
    assertThat(report.findings().get(1).explainedSeconds()).isCloseTo(0.035, within(1e-9));
  }

  @Test
  void withAcksOneASlotWaitIsNotPutOnAFollower() {
    // acks=1: the leader answers without its followers, whatever its high watermark waited for.
    ProducerEvidence waiting =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 3, 360, 1, -1, 4, 1, false);
    CommitWaits waits = (leader, from, to) -> new CommitWaits.CommitWait(75 * MS, 3);
    DiagnosisReport report =
        diagnose(producerTail(10, waiting, 80, 5, 5, 5, 5), BrokerTimings.NONE, waits);

    assertKnobs(report, "max.in.flight.requests.per.connection");
  }

  @Test
  void aWaitPastLingerWithFreeRequestSlotsIsNotPinnedOnMaxInFlight() {
    // The same wait, but the request found 2 of 5 slots taken: something else held the batch.
    ProducerEvidence waiting =
        new ProducerEvidence(5, 16_384, 33_554_432, 5, 3, 360, 1, -1, 2, 1, true);
    DiagnosisReport report = diagnose(producerTail(10, waiting, 80, 5, 5, 5, 5));

    assertThat(report.findings())
        .noneMatch(f -> f.knob().equals("max.in.flight.requests.per.connection"));
  }

  @Test
  void retriedBatchesNameRetries() {
    ProducerEvidence retried =
        new ProducerEvidence(0, 16_384, 33_554_432, 5, 10, 1_000, 3, -1, -1, -1, true);
    DiagnosisReport report = diagnose(producerTail(10, retried, 60, 5, 5, 5, 5));

    assertThat(report.findings().get(0).knob()).isEqualTo("retries");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("tail records sent more than once", "10 of 10")
        .containsEntry("errors retried for", "unknown 10");
    // An agent that does not report the error: nothing says the ISR was short.
    assertThat(report.findings()).noneMatch(f -> f.knob().equals("min.insync.replicas"));
  }

  @Test
  void batchesRetriedBecauseTheIsrWasBelowMinInsyncReplicasNameIt() {
    DiagnosisReport report =
        diagnose(producerTail(10, retriedFor("NOT_ENOUGH_REPLICAS"), 60, 5, 5, 5, 5));

    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("produce");
    assertThat(top.knob()).isEqualTo("min.insync.replicas");
    // The whole produce segment, 60 ms of the tail's 80.
    assertThat(top.tailShare()).isCloseTo(0.75, within(1e-9));
    assertThat(top.evidence())
        .containsEntry(
            "tail records retried because the ISR was below min.insync.replicas", "10 of 10")
        .containsEntry("error", "NOT_ENOUGH_REPLICAS 10")
        .containsEntry("leader the batches went to", "broker 1")
        .containsEntry("produce, tail mean", "60.0 ms");
    assertThat(top.suggestion()).contains("follower").contains("durability");
    assertThat(report.findings()).noneMatch(f -> f.knob().equals("retries"));
  }

  @Test
  void belowMinInsyncReplicasShowsTheLeadersPartitionsUnderMinIsrWhenKnown() {
    Map<Integer, BrokerTimings.Partitions> counts =
        Map.of(
            1,
            new BrokerTimings.Partitions(40, 120, 3),
            2,
            new BrokerTimings.Partitions(38, 120, 0));
    List<TailRecord> tail = producerTail(10, retriedFor("NOT_ENOUGH_REPLICAS"), 60, 5, 5, 5, 5);

    Finding withCounts =
        knob(diagnose(tail, withPartitions(BrokerTimings.NONE, counts)), "min.insync.replicas");
    Finding without = knob(diagnose(tail), "min.insync.replicas");

    assertThat(withCounts.evidence())
        .containsEntry("partitions under min ISR on broker 1", 3L)
        .containsEntry("partitions broker 1 leads", 40L)
        .containsEntry("partitions broker 1 hosts", 120L)
        .containsEntry("partitions the other brokers lead", "38");
    assertThat(without.evidence())
        .doesNotContainKeys("partitions under min ISR on broker 1", "partitions broker 1 leads");
    assertThat(withCounts.suggestion()).isEqualTo(without.suggestion());
  }

  @Test
  void belowMinInsyncReplicasShowsTheLeadersIsrShrinksAndExpandsOverTheWindow() {
    List<TailRecord> tail = producerTail(10, retriedFor("NOT_ENOUGH_REPLICAS"), 60, 5, 5, 5, 5);
    Map<Integer, BrokerTimings.Replication> replication =
        Map.of(1, replication(3, 1, 0), 2, replication(0, 0, 0));

    Finding without = knob(diagnose(tail), "min.insync.replicas");
    Finding with =
        knob(
            diagnose(tail, withReplication(BrokerTimings.NONE, replication)),
            "min.insync.replicas");

    assertThat(with.evidence())
        .containsEntry("ISR shrinks on broker 1 (the leader), last 5m", 3L)
        .containsEntry("ISR expands on broker 1 (the leader), last 5m", 1L)
        .doesNotContainKey("replica fetcher max lag on broker 2 (messages)");
    assertThat(without.evidence())
        .doesNotContainKey("ISR shrinks on broker 1 (the leader), last 5m");
    assertThat(with.suggestion()).isEqualTo(without.suggestion());
    assertThat(diagnose(tail, withReplication(BrokerTimings.NONE, replication)).findings().get(0))
        .isEqualTo(with);
  }

  @Test
  void retriesForOtherErrorsStayRetriesBesideMinInsyncReplicas() {
    List<TailRecord> tail = new ArrayList<>();
    tail.addAll(producerTail(6, retriedFor("NOT_ENOUGH_REPLICAS_AFTER_APPEND"), 60, 5, 5, 5, 5));
    tail.addAll(producerTail(4, retriedFor("NOT_LEADER_OR_FOLLOWER"), 60, 5, 5, 5, 5));

    DiagnosisReport report = diagnose(tail);

    Finding minIsr = knob(report, "min.insync.replicas");
    Finding retries = knob(report, "retries");
    assertThat(minIsr.tailShare()).isCloseTo(0.6 * 0.75, within(1e-9));
    assertThat(retries.tailShare()).isCloseTo(0.4 * 0.75, within(1e-9));
    assertThat(minIsr.evidence()).containsEntry("error", "NOT_ENOUGH_REPLICAS_AFTER_APPEND 6");
    assertThat(retries.evidence())
        .containsEntry("tail records sent more than once", "4 of 10")
        .containsEntry("errors retried for", "NOT_LEADER_OR_FOLLOWER 4");
    assertThat(report.findings().get(0)).isSameAs(minIsr);
  }

  @Test
  void recordsHeldInTheirBatchBehindARefusedOneAreMinInsyncReplicasNotBatchSize() {
    // Two records refused until the ISR came back at 20 s; behind them, on the same leader, full
    // batches that an idempotent producer held until then, sent once, and one on another leader.
    TailRecord refused =
        drainedAt(
            tailRecord(
                new double[] {10_000, 5, 5, 5, 5},
                0,
                1,
                retriedFor("NOT_ENOUGH_REPLICAS"),
                DEFAULT_CONSUMER),
            20_000,
            3);
    ProducerEvidence full =
        new ProducerEvidence(0, 16_384, 33_554_432, 5, 78, 16_376, 1, -1, -1, -1, true, -1, "");
    TailRecord heldBatch =
        tailRecord(new double[] {9_500, 5, 5, 5, 5}, 0, 1, full, DEFAULT_CONSUMER);
    List<TailRecord> tail = new ArrayList<>();
    tail.addAll(tail(2, refused));
    tail.addAll(tail(3, drainedAt(heldBatch, 20_050, 3)));
    tail.add(drainedAt(heldBatch, 20_050, 2));

    DiagnosisReport report = diagnose(tail);

    Finding top = report.findings().get(0);
    assertThat(top.knob()).isEqualTo("min.insync.replicas");
    assertThat(top.evidence())
        .containsEntry(
            "tail records retried because the ISR was below min.insync.replicas", "2 of 6")
        .containsEntry("tail records held in their batch behind a refused one", "3 of 6");
    // Refused: their 10 s; held: the 9,450 ms from their send to the refused records' last attempt.
    assertThat(top.explainedSeconds()).isCloseTo((2 * 10.0 + 3 * 9.45) / 6, within(1e-9));
    // Only the record on the other leader, and the held records' last 50 ms, stay a backlog.
    assertThat(knob(report, "batch.size").explainedSeconds())
        .isCloseTo((9.5 + 3 * 0.05) / 6, within(1e-9));
  }

  // Sent three times, the last retry for this error.
  private static ProducerEvidence retriedFor(String error) {
    return new ProducerEvidence(
        0, 16_384, 33_554_432, 5, 10, 1_000, 3, -1, -1, -1, true, -1, error);
  }

  private static Finding knob(DiagnosisReport report, String knob) {
    return report.findings().stream()
        .filter(f -> f.knob().equals(knob))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + knob + " in " + report.findings()));
  }
}
