package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.Tails.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The publish, commit, catch-up and fetch rules and the ranking of findings on hand-built tails:
 * each rule names its knob when its evidence holds, and only then ({@link ProduceRulesTest}: the
 * produce rules).
 */
class DiagnosisTest {
  @Test
  void theLeadersRequestQueueAndAppendComeFromItsRequestTimings() {
    DiagnosisReport report = diagnose(defaultTail(2, 60, 5, 1, 2), produceTimings(40, 15));

    assertKnobs(report, "broker 1 request queue", "broker 1 log append");
    assertExplains(report, 0.040);
    // What the broker's timings leave of publish (5 of 60 ms) is no network finding.
    assertThat(report.findings()).noneMatch(f -> f.knob().startsWith("before"));
  }

  @Test
  void theTailsOwnRequestQueueTimesFromTheProbeNameTheQueueWhereTheBrokersMeansAreSmall() {
    // Broker 1's means (every client's requests) are 1 ms each; the tail's own requests waited
    // 45 ms in its queue.
    DiagnosisReport report = diagnose(probedTail(45, 2, 2, 60, 5, 1, 2), produceTimings(1, 1));

    assertThat(report.findings().get(0).knob()).isEqualTo("broker 1 request queue");
    assertExplains(report, 0.045);
    assertThat(report.findings().get(0).evidence())
        .containsEntry(
            "Produce request queue, the tail's own requests (broker probe), mean", "45.0 ms")
        .containsEntry(
            "Produce queue to append, the tail's own requests (broker probe), mean", "2.0 ms")
        .containsEntry("tail records with their own request times (broker probe)", "10 of 10")
        .containsEntry("Produce RequestQueueTimeMs, broker mean", "1.0 ms");
    assertThat(report.findings()).noneMatch(f -> f.knob().equals("broker 1 log append"));
  }

  @Test
  void anotherClientsSlowAppendsInTheBrokersMeansAreNotTheTailsWhenItsOwnRequestsWereQuick() {
    // Broker 1's LocalTimeMs mean is 40 ms, but the tail's own requests took 1 ms from the queue
    // to the append: the 58 ms left are before the broker read them.
    DiagnosisReport report = diagnose(probedTail(1, 1, 2, 60, 5, 1, 2), produceTimings(1, 40));

    assertKnobs(report, "before broker 1 read the request");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("outside the broker's request timings, tail mean", "58.0 ms")
        .containsEntry("tail records with their own request times (broker probe)", "10 of 10");
  }

  @Test
  void theProbesRequestTimesNameTheRequestQueueWithoutScrapedBrokerTimings() {
    DiagnosisReport report = diagnose(probedTail(45, 2, 2, 60, 5, 1, 2), BrokerTimings.NONE);

    assertKnobs(report, "broker 1 request queue");
    assertExplains(report, 0.045);
    assertThat(report.findings().get(0).evidence())
        .containsEntry("broker request timings", "none (not scraped)")
        .containsEntry(
            "Produce request queue, the tail's own requests (broker probe), mean", "45.0 ms");
  }

  @Test
  void withoutBrokerTimingsTheRemainderOfTheProbesRequestTimesIsBeforeTheBrokerReadTheRequest() {
    DiagnosisReport report = diagnose(probedTail(1, 1, 2, 60, 5, 1, 2), BrokerTimings.NONE);

    assertKnobs(report, "before broker 1 read the request");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("broker request timings", "none (not scraped)")
        .containsEntry("tail records with their own request times (broker probe)", "10 of 10");
  }

  @Test
  void requestsBehindAnAcksAllRequestWaitingForItsFollowersNameTheLeadersReplication() {
    DiagnosisReport report = diagnose(defaultTail(2, 800, 5, 1, 2), produceTimings(1, 1, 700));

    assertKnobs(report, "broker 1 replication");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("Produce RemoteTimeMs, broker mean", "700.0 ms");
  }

  @Test
  void withAcksAllAPublishHeldBehindTheWindowsReplicationWaitsNamesReplication() {
    // A follower paused: the batch waiting for it has a long commit (the window's commit p99 is
    // 800 ms), and the batches behind it on the connection wait in publish before the broker
    // reads them, where its request timings do not see them.
    Map<String, RecentBreakdowns.SegmentQuantiles> segments = new LinkedHashMap<>();
    for (Segment s : Segment.values()) {
      segments.put(
          s.id(),
          new RecentBreakdowns.SegmentQuantiles(
              1000, 2 * MS, s == Segment.COMMIT ? 800 * MS : 10 * MS));
    }
    RecentBreakdowns.Summary summary =
        new RecentBreakdowns.Summary(
            1000, 10 * MS, 900 * MS, 950 * MS, 10, Map.of(), Map.of(), segments, Map.of());
    TailRecord behind =
        tailRecord(new double[] {5, 850, 3, 1, 2}, 0, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER);

    DiagnosisReport report =
        Diagnosis.diagnose(
            summary,
            tail(10, behind),
            BrokerTimings.NONE,
            CommitWaits.NONE,
            WINDOW_START,
            WINDOW_NANOS);

    assertKnobs(report, "broker 1 replication");
    assertExplains(report, 0.8);
    ProducerEvidence acksOne =
        new ProducerEvidence(0, 16_384, 33_554_432, 5, 20, 4_000, 1, -1, -1, -1, false);
    assertThat(
            Diagnosis.diagnose(
                    summary,
                    tail(
                        10,
                        tailRecord(
                            new double[] {5, 850, 3, 1, 2}, 0, 1, acksOne, DEFAULT_CONSUMER)),
                    BrokerTimings.NONE,
                    CommitWaits.NONE,
                    WINDOW_START,
                    WINDOW_NANOS)
                .findings())
        .extracting(Finding::knob)
        .containsExactly("publish to broker 1 (no broker timings)");
  }

  @Test
  void aPublishHeldBehindAHighWatermarkWaitTheProbeMeasuredNamesTheFollowerThatEndedIt() {
    // Broker 1's high watermark spent 800 ms of the records' publish waiting, ended by broker 2.
    CommitWaits waits =
        (leader, from, to) ->
            leader == 1 && from == 1_000 && to == 1_000 + 850 * MS
                ? new CommitWaits.CommitWait(800 * MS, 2)
                : null;
    List<TailRecord> held = defaultTail(5, 850, 3, 1, 2);

    DiagnosisReport report = diagnose(held, BrokerTimings.NONE, waits);

    assertKnobs(report, "broker 2 follower fetch");
    assertExplains(report, 0.8);
    assertThat(report.findings().get(0).segment()).isEqualTo("publish");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("held behind broker 1's high-watermark waits, mean of those", "800.0 ms")
        .containsEntry("the waits ended by", "broker 2's fetch (broker probe)");
    assertThat(report.findings().get(0).suggestion()).contains("Broker 2 was the follower");
  }

  @Test
  void withTheProbeTheLeadersRequestTimingsStillSplitWhatTheHoldLeaves() {
    // 100 ms of publish: 1 ms queue and 2 ms append (broker 1's timings), 40 ms held behind
    // requests waiting for follower 3, 57 ms before broker 1 read the request.
    DiagnosisReport report =
        diagnose(
            defaultTail(2, 100, 5, 1, 2),
            produceTimings(1, 2, 30),
            (leader, from, to) -> new CommitWaits.CommitWait(40 * MS, 3));

    assertKnobs(report, "before broker 1 read the request", "broker 3 follower fetch");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("outside the broker's request timings, tail mean", "57.0 ms")
        .containsEntry("broker request timings", "read");
  }

  @Test
  void withTheProbeSeeingNoWaitAPublishIsNotPutOnReplication() {
    DiagnosisReport report =
        diagnose(
            defaultTail(5, 850, 3, 1, 2),
            BrokerTimings.NONE,
            (leader, from, to) -> CommitWaits.CommitWait.NONE);

    assertKnobs(report, "publish to broker 1 (no broker timings)");
  }

  @Test
  void aLongCommitEndedMostlyByOneFollowersFetchNamesThatFollower() {
    TailRecord r =
        tailRecord(new double[] {2, 3, 70, 1, 2}, 0, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER);
    List<TailRecord> records = new ArrayList<>(tail(6, committedBy(r, 3)));
    records.addAll(tail(4, committedBy(r, 2)));

    DiagnosisReport report = diagnose(records);

    assertKnobs(report, "broker 3 follower fetch");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("share of the tail's commit time ended by broker 3's fetch", "60%");
  }

  @Test
  void aLongCommitSpreadOverTheFollowersNamesTheLeadersReplication() {
    TailRecord r =
        tailRecord(new double[] {2, 3, 70, 1, 2}, 0, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER);
    List<TailRecord> records = new ArrayList<>(tail(4, committedBy(r, 3)));
    records.addAll(tail(3, committedBy(r, 2)));
    records.addAll(tail(3, r));

    assertKnobs(diagnose(records), "broker 1 replication");
  }

  @Test
  void aPublishTheBrokerDoesNotAccountForIsTheNetwork() {
    DiagnosisReport report = diagnose(defaultTail(2, 60, 5, 1, 2), produceTimings(1, 2));

    assertKnobs(report, "before broker 1 read the request");
    assertThat(report.findings().get(0).evidence()).containsEntry("broker request timings", "read");
    assertExplains(report, 0.057);
  }

  @Test
  void withoutBrokerTimingsPublishIsNotPinnedOnTheNetwork() {
    DiagnosisReport report = defaults(2, 60, 5, 1, 2);

    assertKnobs(report, "publish to broker 1 (no broker timings)");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("broker request timings", "none (not scraped)");
  }

  private static final String MANY_LEADERS =
      " Broker 1 leads many more partitions than the others (412 against a median of 135): move"
          + " leaders off it (preferred leader election, partition reassignment) or add brokers.";

  @Test
  void aSlowAppendOnALeaderOfManyMorePartitionsThanTheOthersSaysSo() {
    Finding plain = diagnose(defaultTail(2, 60, 5, 1, 2), produceTimings(1, 40)).findings().get(0);
    Finding append =
        diagnose(
                defaultTail(2, 60, 5, 1, 2),
                withPartitions(produceTimings(1, 40), leaders(412, 120, 150)))
            .findings()
            .get(0);

    assertThat(append.knob()).isEqualTo("broker 1 log append");
    assertThat(append.evidence())
        .containsEntry("partitions broker 1 leads", 412L)
        .containsEntry("partitions broker 1 hosts", 1236L)
        .containsEntry("partitions the other brokers lead", "120 to 150");
    assertThat(append.suggestion()).isEqualTo(plain.suggestion() + MANY_LEADERS);
    assertThat(plain.evidence()).doesNotContainKey("partitions broker 1 leads");
  }

  @Test
  void aRequestQueueOnALeaderOfManyMorePartitionsThanTheOthersSaysSo() {
    Finding plain = diagnose(defaultTail(2, 60, 5, 1, 2), produceTimings(40, 1)).findings().get(0);
    Finding queue =
        diagnose(
                defaultTail(2, 60, 5, 1, 2),
                withPartitions(produceTimings(40, 1), leaders(412, 120, 150)))
            .findings()
            .get(0);

    assertThat(queue.knob()).isEqualTo("broker 1 request queue");
    assertThat(queue.evidence()).containsEntry("partitions broker 1 leads", 412L);
    assertThat(queue.suggestion()).isEqualTo(plain.suggestion() + MANY_LEADERS);
  }

  @Test
  void aSlowAppendOnABalancedLeaderShowsItsPartitionsWithoutTheExtraSentence() {
    Finding plain = diagnose(defaultTail(2, 60, 5, 1, 2), produceTimings(1, 40)).findings().get(0);
    for (Map<Integer, BrokerTimings.Partitions> counts :
        List.of(
            leaders(260, 120, 150), // less than twice the others' median
            leaders(90, 10, 20), // many times the others, but few
            Map.of(1, new BrokerTimings.Partitions(412, 1236, 0)))) { // no other broker known
      Finding append =
          diagnose(defaultTail(2, 60, 5, 1, 2), withPartitions(produceTimings(1, 40), counts))
              .findings()
              .get(0);
      assertThat(append.knob()).isEqualTo("broker 1 log append");
      assertThat(append.evidence())
          .containsEntry("partitions broker 1 leads", counts.get(1).leaders());
      assertThat(append.suggestion()).as(counts.toString()).isEqualTo(plain.suggestion());
    }
  }

  @Test
  void replicationOnALeaderOfManyMorePartitionsThanTheOthersSaysSo() {
    Finding replication =
        diagnose(
                defaultTail(2, 800, 5, 1, 2),
                withPartitions(produceTimings(1, 1, 700), leaders(412, 120, 150)))
            .findings()
            .get(0);

    assertThat(replication.knob()).isEqualTo("broker 1 replication");
    assertThat(replication.evidence())
        .containsEntry("partitions broker 1 leads", 412L)
        .containsEntry("partitions the other brokers lead", "120 to 150");
    assertThat(replication.suggestion()).endsWith(MANY_LEADERS);
  }

  @Test
  void aLongCommitShowsThePartitionsItsLeaderLeads() {
    Finding commit =
        diagnose(
                defaultTail(2, 3, 70, 1, 2),
                withPartitions(BrokerTimings.NONE, leaders(230, 120, 120)))
            .findings()
            .get(0);

    assertThat(commit.segment()).isEqualTo("commit");
    assertThat(commit.evidence())
        .containsEntry("partitions broker 1 leads", 230L)
        .containsEntry("partitions broker 1 hosts", 690L)
        .containsEntry("partitions the other brokers lead", "120");
    assertThat(commit.suggestion()).doesNotContain("leads many more");
  }

  @Test
  void aLongCommitOnALeaderOfManyMorePartitionsThanTheOthersSaysSo() {
    Finding commit =
        diagnose(
                defaultTail(2, 3, 70, 1, 2),
                withPartitions(BrokerTimings.NONE, leaders(412, 120, 150)))
            .findings()
            .get(0);

    assertThat(commit.segment()).isEqualTo("commit");
    assertThat(commit.suggestion()).endsWith(MANY_LEADERS);
  }

  @Test
  void aPublishHeldBehindTheFollowersOfALeaderOfManyMorePartitionsSaysSo() {
    CommitWaits waits = (leader, from, to) -> new CommitWaits.CommitWait(800 * MS, 2);
    Finding held =
        diagnose(
                defaultTail(5, 850, 3, 1, 2),
                withPartitions(BrokerTimings.NONE, leaders(412, 120, 150)),
                waits)
            .findings()
            .get(0);
    Finding balanced =
        diagnose(
                defaultTail(5, 850, 3, 1, 2),
                withPartitions(BrokerTimings.NONE, leaders(230, 120, 150)),
                waits)
            .findings()
            .get(0);

    assertThat(held.knob()).isEqualTo("broker 2 follower fetch");
    assertThat(held.evidence())
        .containsEntry("partitions broker 1 leads", 412L)
        .containsEntry("partitions the other brokers lead", "120 to 150");
    assertThat(held.suggestion()).endsWith(MANY_LEADERS);
    assertThat(balanced.knob()).isEqualTo("broker 2 follower fetch");
    assertThat(balanced.suggestion()).doesNotContain("leads many more");
  }

  // Broker 1 leads; broker 2 lags far behind, broker 3 keeps up; broker 1 shrank 4 ISRs.
  private static final Map<Integer, BrokerTimings.Replication> LAGGING_FOLLOWER =
      Map.of(1, replication(4, 1, 0), 2, replication(0, 0, 52_000), 3, replication(0, 0, 12));

  private static final String LEADER_SHRINKS = "ISR shrinks on broker 1 (the leader), last 5m";

  @Test
  void aPublishHeldBehindAFollowerShowsItsLagAndTheLeadersIsrShrinks() {
    CommitWaits waits = (leader, from, to) -> new CommitWaits.CommitWait(800 * MS, 2);
    List<TailRecord> held = defaultTail(5, 850, 3, 1, 2);
    DiagnosisReport plain = diagnose(held, BrokerTimings.NONE, waits);
    DiagnosisReport report =
        diagnose(held, withReplication(BrokerTimings.NONE, LAGGING_FOLLOWER), waits);

    Finding top = report.findings().get(0);
    assertThat(top.knob())
        .isEqualTo(plain.findings().get(0).knob())
        .isEqualTo("broker 2 follower fetch");
    assertThat(top.tailShare()).isEqualTo(plain.findings().get(0).tailShare());
    assertThat(top.evidence())
        .containsEntry("replica fetcher max lag on broker 2 (messages)", 52_000L)
        .containsEntry(LEADER_SHRINKS, 4L)
        .doesNotContainKeys(
            "replica fetcher max lag on broker 3 (messages)",
            "ISR expands on broker 1 (the leader), last 5m");
    assertThat(top.suggestion()).isEqualTo(plain.findings().get(0).suggestion());
    assertThat(plain.findings().get(0).evidence()).doesNotContainKey(LEADER_SHRINKS);
  }

  @Test
  void aLongCommitEndedByOneFollowerShowsItsLagAndTheLeadersIsrShrinks() {
    TailRecord r =
        tailRecord(new double[] {2, 3, 70, 1, 2}, 0, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER);
    List<TailRecord> records = tail(10, committedBy(r, 2));

    Finding commit =
        diagnose(records, withReplication(BrokerTimings.NONE, LAGGING_FOLLOWER)).findings().get(0);

    assertThat(commit.knob()).isEqualTo("broker 2 follower fetch");
    assertThat(commit.evidence())
        .containsEntry("replica fetcher max lag on broker 2 (messages)", 52_000L)
        .containsEntry(LEADER_SHRINKS, 4L)
        .doesNotContainKey("replica fetcher max lag on broker 3 (messages)");
  }

  @Test
  void aLongCommitOnTheLeadersReplicationShowsItsIsrShrinksAndEachOtherBrokersLag() {
    Finding commit =
        diagnose(defaultTail(2, 3, 70, 1, 2), withReplication(BrokerTimings.NONE, LAGGING_FOLLOWER))
            .findings()
            .get(0);

    assertThat(commit.knob()).isEqualTo("broker 1 replication");
    assertThat(commit.evidence())
        .containsEntry(LEADER_SHRINKS, 4L)
        .containsEntry("replica fetcher max lag on broker 2 (messages)", 52_000L)
        .containsEntry("replica fetcher max lag on broker 3 (messages)", 12L)
        .doesNotContainKey("replica fetcher max lag on broker 1 (messages)");
  }

  @Test
  void aPublishOnTheLeadersReplicationShowsItsIsrShrinksAndEachOtherBrokersLag() {
    Finding replication =
        diagnose(
                defaultTail(2, 800, 5, 1, 2),
                withReplication(produceTimings(1, 1, 700), LAGGING_FOLLOWER))
            .findings()
            .get(0);

    assertThat(replication.knob()).isEqualTo("broker 1 replication");
    assertThat(replication.segment()).isEqualTo("publish");
    assertThat(replication.evidence())
        .containsEntry(LEADER_SHRINKS, 4L)
        .containsEntry("replica fetcher max lag on broker 2 (messages)", 52_000L)
        .containsEntry("replica fetcher max lag on broker 3 (messages)", 12L)
        .doesNotContainKey("replica fetcher max lag on broker 1 (messages)");
  }

  @Test
  void isrShrinksTheHistoryCannotCoverAreAtLeastOrUnknown() {
    Map<Integer, BrokerTimings.Replication> partial =
        Map.of(
            1,
            new BrokerTimings.Replication(
                new BrokerTimings.Changes(2, true), BrokerTimings.Changes.UNKNOWN, -1),
            2,
            new BrokerTimings.Replication(
                BrokerTimings.Changes.UNKNOWN, BrokerTimings.Changes.UNKNOWN, -1));
    Finding atLeast =
        diagnose(defaultTail(2, 3, 70, 1, 2), withReplication(BrokerTimings.NONE, partial))
            .findings()
            .get(0);
    Finding unknown =
        diagnose(
                defaultTail(2, 3, 70, 1, 2),
                withReplication(BrokerTimings.NONE, Map.of(1, partial.get(2))))
            .findings()
            .get(0);

    assertThat(atLeast.evidence())
        .containsEntry(LEADER_SHRINKS, "at least 2")
        .containsEntry("replica fetcher max lag on broker 2 (messages)", "unknown");
    assertThat(unknown.evidence()).containsEntry(LEADER_SHRINKS, "unknown");
  }

  @Test
  void theWindowIsNamedAsTheApiTakesIt() {
    assertThat(new TailEvidence.Window(0, 300_000 * MS).label()).isEqualTo("5m");
    assertThat(new TailEvidence.Window(0, 3_600_000 * MS).label()).isEqualTo("1h");
    assertThat(new TailEvidence.Window(0, 90_000 * MS).label()).isEqualTo("90s");
    assertThat(new TailEvidence.Window(0, 500 * MS).label()).isEqualTo("500ms");
  }

  @Test
  void aLongCommitNamesTheLeadersReplication() {
    DiagnosisReport report = defaults(2, 3, 70, 1, 2);

    assertThat(report.findings())
        .extracting(Finding::segment, Finding::knob)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("commit", "broker 1 replication"));
  }

  @Test
  void catchUpSplitsIntoTheApplicationAndTheLag() {
    double[] catchUp = {2, 3, 3, 80, 2};
    DiagnosisReport slowApp =
        diagnose(tail(10, tailRecord(catchUp, 0, 80, DEFAULT_PRODUCER, DEFAULT_CONSUMER)));
    DiagnosisReport lagging =
        diagnose(tail(10, tailRecord(catchUp, 79, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER)));

    assertKnobs(slowApp, "application time between polls");
    assertThat(slowApp.findings().get(0).evidence()).containsEntry("max.poll.records", 500L);
    assertKnobs(lagging, "consumer lag");
  }

  @Test
  void aLaggingConsumerWithSeveralPartitionsNamesTooFewConsumers() {
    double[] catchUp = {2, 3, 3, 80, 2};
    ConsumerEvidence sixPartitions = new ConsumerEvidence(1, 500, 500, -1, -1, 6);
    ConsumerEvidence onePartition = new ConsumerEvidence(1, 500, 500, -1, -1, 1);
    DiagnosisReport six =
        diagnose(tail(10, tailRecord(catchUp, 79, 1, DEFAULT_PRODUCER, sixPartitions)));
    DiagnosisReport one =
        diagnose(tail(10, tailRecord(catchUp, 79, 1, DEFAULT_PRODUCER, onePartition)));

    assertKnobs(six, "too few consumers");
    assertThat(six.findings().get(0).evidence())
        .containsEntry("partitions of the topic per consumer, tail median", 6L);
    assertThat(six.findings().get(0).suggestion())
        .contains("Each consumer reads 6 partitions of the topic: add consumers");
    assertKnobs(one, "consumer lag");
    assertThat(one.findings().get(0).suggestion()).contains("add partitions (and consumers)");
  }

  @Test
  void theApplicationsPaceBetweenPollsIsItsEvidence() {
    // 200 ms between polls, spent on the 20 records of the poll before: 10 ms each.
    ConsumerEvidence slow = new ConsumerEvidence(1, 500, 500, 200 * MS, 20, -1);
    DiagnosisReport report =
        diagnose(
            tail(10, tailRecord(new double[] {2, 3, 3, 180, 2}, 0, 180, DEFAULT_PRODUCER, slow)));

    assertKnobs(report, "application time between polls");
    assertThat(report.findings().get(0).evidence())
        .containsEntry("time between polls, tail median", "200.0 ms")
        .containsEntry("records of the poll before, tail median", 20L)
        .containsEntry("per record", "10.0 ms");
    assertThat(report.findings().get(0).suggestion())
        .contains("Between polls it spent 200.0 ms on 20 record(s), about 10.0 ms each.");
    // A backlog drained by polls that follow each other at once: the time was spent earlier.
    ConsumerEvidence draining = new ConsumerEvidence(1, 500, 500, 20_000, 20, -1);
    assertThat(
            diagnose(
                    tail(
                        10,
                        tailRecord(
                            new double[] {2, 3, 3, 180, 2}, 0, 180, DEFAULT_PRODUCER, draining)))
                .findings()
                .get(0)
                .suggestion())
        .contains("right after the ones before (under 1 ms)");
  }

  @Test
  void aFetchHeldForMinBytesNamesFetchMinBytes() {
    ConsumerEvidence waiting = new ConsumerEvidence(100_000, 500, 500, -1, -1, -1);
    DiagnosisReport report =
        diagnose(
            tail(10, tailRecord(new double[] {2, 3, 3, 1, 500}, 0, 1, DEFAULT_PRODUCER, waiting)));

    assertKnobs(report, "fetch.min.bytes");
    assertExplains(report, 0.5);
  }

  @Test
  void aSlowFetchWithoutMinBytesIsTheFetchPath() {
    DiagnosisReport report = defaults(2, 3, 3, 1, 60);

    assertKnobs(report, "fetch path from broker 1");
  }

  @Test
  void fetchesWaitingInTheLeadersRequestQueueNameItsFetchQueue() {
    // 60 ms of fetch, 45 of them the leader's mean FetchConsumer queue time: the 15 left are
    // too little of the tail (69 ms) to be pinned on the path.
    DiagnosisReport report = diagnose(defaultTail(2, 3, 3, 1, 60), fetchTimings(45));

    assertKnobs(report, "broker 1 fetch queue");
    assertExplains(report, 0.045);
    assertThat(report.findings().get(0).evidence())
        .containsEntry("FetchConsumer RequestQueueTimeMs, broker mean", "45.0 ms");
  }

  @Test
  void aFetchQueueIsBoundedByWhatFetchMinBytesLeft() {
    // 500 ms of fetch: 400 held for fetch.min.bytes (fetch.max.wait.ms), so at most 100 of the
    // broker's mean 200 ms queue time.
    ConsumerEvidence waiting = new ConsumerEvidence(100_000, 400, 500, -1, -1, -1);
    DiagnosisReport report =
        diagnose(
            tail(10, tailRecord(new double[] {2, 3, 3, 1, 500}, 0, 1, DEFAULT_PRODUCER, waiting)),
            fetchTimings(200));

    assertKnobs(report, "fetch.min.bytes", "broker 1 fetch queue");
    assertThat(report.findings().get(1).explainedSeconds())
        .isCloseTo(0.100, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void aSmallFetchQueueLeavesTheRestToThePath() {
    DiagnosisReport report = diagnose(defaultTail(2, 3, 3, 1, 60), fetchTimings(1));

    assertKnobs(report, "fetch path from broker 1");
    assertExplains(report, 0.059);
  }

  @Test
  void findingsAreOrderedByTheShareTheyExplain() {
    ProducerEvidence lingering =
        new ProducerEvidence(20, 16_384, 33_554_432, 5, 1, 120, 1, -1, -1, -1, true);
    ConsumerEvidence waiting = new ConsumerEvidence(100_000, 60, 500, -1, -1, -1);
    DiagnosisReport report =
        diagnose(tail(10, tailRecord(new double[] {21, 2, 2, 1, 60}, 0, 1, lingering, waiting)));

    assertKnobs(report, "fetch.min.bytes", "linger.ms");
  }

  @Test
  void aTailSpreadEvenlyOverTheSegmentsIsLeftUnexplained() {
    List<TailRecord> even = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      double v = 10 + i % 3;
      even.add(
          tailRecord(
              new double[] {v, v, v, v, v}, v / 2, v / 2, DEFAULT_PRODUCER, DEFAULT_CONSUMER));
    }
    DiagnosisReport report = diagnose(even);

    assertThat(report.findings()).isEmpty();
    assertThat(report.unexplained()).startsWith("Nothing explains the p99 tail");
    assertThat(report.tailRecords()).isEqualTo(20);
  }

  @Test
  void aTailOfTooFewRecordsIsNotWeighed() {
    ProducerEvidence lingering =
        new ProducerEvidence(100, 16_384, 33_554_432, 5, 1, 120, 1, -1, -1, -1, true);
    DiagnosisReport report = diagnose(producerTail(2, lingering, 101, 2, 3, 1, 3));

    assertThat(report.findings()).isEmpty();
    assertThat(report.unexplained()).startsWith("Too few breakdowns");
  }

  @Test
  void unknownEvidenceClaimsNothing() {
    DiagnosisReport report =
        diagnose(
            tail(
                10,
                tailRecord(
                    new double[] {30, 20, 20, 15, 15},
                    -1,
                    -1,
                    ProducerEvidence.UNKNOWN,
                    ConsumerEvidence.UNKNOWN)));

    assertThat(report.findings()).isEmpty();
  }
}
