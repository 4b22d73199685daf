package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.Tails.DEFAULT_CONSUMER;
import static dev.klat.collector.diagnose.Tails.DEFAULT_PRODUCER;
import static dev.klat.collector.diagnose.Tails.MS;
import static dev.klat.collector.diagnose.Tails.assertKnobs;
import static dev.klat.collector.diagnose.Tails.committedBy;
import static dev.klat.collector.diagnose.Tails.diagnose;
import static dev.klat.collector.diagnose.Tails.tail;
import static dev.klat.collector.diagnose.Tails.tailRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.model.Capture;
import org.junit.jupiter.api.Test;

/**
 * Section 9 of the latency model: a {@code read_committed} group's commit tail made of the wait for
 * the transaction names the producer's transaction duration, not replication.
 */
class TransactionDiagnosisTest {

  // Commit 70 ms, of which transactionMs waited for the transaction; committed by broker 3.
  private static TailRecord waited(double transactionMs) {
    TailRecord r =
        committedBy(
            tailRecord(new double[] {2, 3, 70, 1, 2}, 0, 1, DEFAULT_PRODUCER, DEFAULT_CONSUMER), 3);
    return new TailRecord(
        r.drainEpochNanos(),
        r.e2eNanos(),
        r.segmentNanos(),
        r.lagNanos(),
        r.bufferedNanos(),
        r.leaderNodeId(),
        r.commitFollowerId(),
        r.requestQueueNanos(),
        r.requestLocalNanos(),
        r.producer(),
        r.consumer(),
        Capture.SAMPLED,
        -1,
        -1,
        (long) (transactionMs * MS),
        -1,
        -1);
  }

  @Test
  void aCommitTailDominatedByTheTransactionWaitNamesTheTransactionDuration() {
    DiagnosisReport report = diagnose(tail(10, waited(60)));

    assertKnobs(report, CommitRule.TRANSACTION_KNOB);
    Finding finding = report.findings().get(0);
    assertThat(finding.suggestion()).contains("commit.interval.ms").contains("exactly_once_v2");
    assertThat(finding.evidence())
        .containsEntry("transaction wait V - H, tail mean", "60.0 ms")
        .containsEntry("replication H - L, tail mean", "10.0 ms");
  }

  @Test
  void aSmallTransactionWaitLeavesTheCommitToReplication() {
    assertKnobs(diagnose(tail(10, waited(10))), "broker 3 follower fetch");
  }
}
