package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.Tails.DEFAULT_CONSUMER;
import static dev.klat.collector.diagnose.Tails.DEFAULT_PRODUCER;
import static dev.klat.collector.diagnose.Tails.MS;
import static dev.klat.collector.diagnose.Tails.diagnose;
import static dev.klat.collector.diagnose.Tails.tail;
import static dev.klat.collector.diagnose.Tails.tailRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.model.Capture;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The diagnosis over tail records: each finding weighs the records that know its segment and says
 * how many; a partial record (section 8 of the latency model) is skipped by the rules of the
 * segments it lacks. Partial records are built here as the aggregate hands them over (-1 for what
 * is unknown); the Correlator's partial breakdowns come with tail-join's model change.
 */
class TailRecordsDiagnosisTest {

  /** A tail record with these segments (ms, -1 unknown) and this end to end (ms, -1 unknown). */
  private static TailRecord partial(
      double e2eMs, double produceAndPublishMs, double publishAndCommitMs, double... segmentsMs) {
    // Catch-up is all buffer wait (P - R): the application between polls.
    double bufferedMs = segmentsMs[3] < 0 ? 0 : segmentsMs[3];
    TailRecord full = tailRecord(segmentsMs, 0, bufferedMs, DEFAULT_PRODUCER, DEFAULT_CONSUMER);
    long[] nanos = new long[5];
    for (int i = 0; i < 5; i++) {
      nanos[i] = segmentsMs[i] < 0 ? -1 : (long) (segmentsMs[i] * MS);
    }
    return new TailRecord(
        full.drainEpochNanos(),
        e2eMs < 0 ? -1 : (long) (e2eMs * MS),
        nanos,
        segmentsMs[3] < 0 ? -1 : full.lagNanos(),
        segmentsMs[3] < 0 ? -1 : full.bufferedNanos(),
        full.leaderNodeId(),
        full.commitFollowerId(),
        full.requestQueueNanos(),
        full.requestLocalNanos(),
        full.producer(),
        full.consumer(),
        Capture.TAIL,
        publishAndCommitMs < 0 ? -1 : (long) (publishAndCommitMs * MS),
        produceAndPublishMs < 0 ? -1 : (long) (produceAndPublishMs * MS),
        0,
        -1,
        -1);
  }

  @Test
  void eachFindingCountsTheRecordsThatKnowItsSegment() {
    List<TailRecord> records = new ArrayList<>();
    // Five full tail records, slow in catch-up (the application between polls).
    records.addAll(tail(5, partial(308, 6, 6, 1, 5, 1, 300, 1)));
    // Five flagged by the producer alone, slow in publish: no catch-up, no fetch, no end to end.
    records.addAll(tail(5, partial(-1, 401, 402, 1, 400, 2, -1, -1)));

    DiagnosisReport report = diagnose(records);

    assertThat(report.tailRecords()).isEqualTo(10);
    assertThat(report.tailCaptured()).isEqualTo(10);
    // The mean end to end is over the five records that know it.
    assertThat(report.tailMeanSeconds()).isCloseTo(0.308, Offset.offset(1e-9));
    Finding catchUp = finding(report, "catch-up");
    assertThat(catchUp.records()).isEqualTo(5);
    // 300 of the 308 ms of the records that know catch-up.
    assertThat(catchUp.tailShare()).isCloseTo(300.0 / 308, Offset.offset(0.01));
    Finding publish = finding(report, "publish");
    assertThat(publish.records()).isEqualTo(10);
    // Publish over all ten records: (5 x 5 + 5 x 400) / 10 ms of a mean latency of (5 x 308 + 5 x
    // 403) / 10 ms, a producer-only record's latency being the part it covers (S to H).
    assertThat(publish.tailShare()).isCloseTo(202.5 / 355.5, Offset.offset(0.01));
  }

  @Test
  void aRuleWithFewerThanFiveRecordsThatKnowItsSegmentIsNotWeighed() {
    List<TailRecord> records = new ArrayList<>();
    // Four full records slow in catch-up, six producer-only ones that are not slow in publish.
    records.addAll(tail(4, partial(308, 6, 6, 1, 5, 1, 300, 1)));
    records.addAll(tail(6, partial(-1, 11, 11, 1, 10, 1, -1, -1)));

    DiagnosisReport report = diagnose(records);

    assertThat(report.tailRecords()).isEqualTo(10);
    assertThat(report.findings()).extracting(Finding::segment).doesNotContain("catch-up");
  }

  @Test
  void sampledRecordsAloneReadAsBeforeWithTheirCount() {
    DiagnosisReport report =
        diagnose(
            tail(
                10,
                tailRecord(
                    new double[] {1, 5, 1, 300, 1}, 0, 300, DEFAULT_PRODUCER, DEFAULT_CONSUMER)));

    assertThat(report.tailCaptured()).isZero();
    assertThat(report.findings()).isNotEmpty();
    assertThat(report.findings()).allSatisfy(f -> assertThat(f.records()).isEqualTo(10));
  }

  private static Finding finding(DiagnosisReport report, String segment) {
    return report.findings().stream()
        .filter(f -> f.segment().equals(segment))
        .findFirst()
        .orElseThrow(() -> new AssertionError(segment + " not in " + report.findings()));
  }
}
