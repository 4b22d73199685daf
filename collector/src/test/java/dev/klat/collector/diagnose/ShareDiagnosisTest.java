package dev.klat.collector.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ShareSpans;
import dev.klat.collector.correlate.probe.CommitWaits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The diagnosis of a share group's tail (section 11 of the latency model): redelivered records
 * after a lock timeout name the lock or a slow acknowledging application, with the deliveries,
 * their ends and the redelivery part's share of the tail as evidence.
 */
class ShareDiagnosisTest {
  private static final long WINDOW = 60_000_000_000L;

  private static DiagnosisReport diagnose(List<JoinedBreakdown> breakdowns) {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    breakdowns.forEach(b -> recent.add(b, 0));
    return Diagnosis.diagnose(
        recent.summarise("jobs", ShareSpans.GROUP, WINDOW, 1),
        recent.tail("jobs", ShareSpans.GROUP, WINDOW, 1, Diagnosis.MIN_TAIL_RECORDS),
        BrokerTimings.NONE,
        CommitWaits.NONE,
        0,
        WINDOW);
  }

  private static List<JoinedBreakdown> quickThen(List<JoinedBreakdown> slow) {
    List<JoinedBreakdown> all = new ArrayList<>(ShareSpans.records("jobs", 195, 0, 0));
    all.addAll(slow);
    return all;
  }

  @Test
  void recordsNeverAcknowledgedBeforeTheirLockRanOutNameTheLock() {
    // Five records whose first delivery's agent saw no acknowledgement, delivered again 30 s on.
    DiagnosisReport report =
        diagnose(quickThen(ShareSpans.redelivered("jobs", 1_000, 5, null, null, 30_011)));

    Finding top = report.findings().get(0);
    assertThat(top.segment()).isEqualTo("catch-up");
    assertThat(top.knob()).isEqualTo("lock timeout: group.share.record.lock.duration.ms");
    assertThat(top.suggestion())
        .contains(
            "records held past the acquisition lock: group.share.record.lock.duration.ms, or a"
                .substring(1));
    assertThat(top.suggestion()).contains("max.poll.records / processing time");
    assertThat(top.tailShare()).isGreaterThan(0.99);
    assertThat(top.evidence())
        .containsEntry("earlier deliveries by end", Map.of("lock-timeout", 5))
        .containsEntry("never acknowledged before the next delivery", "5 deliveries")
        .containsEntry("redelivered records in the tail", "5 of 5");
    assertThat(report.findings())
        .extracting(Finding::knob)
        .as("the failed deliveries are not consumer lag")
        .doesNotContain("consumer lag", "too few consumers");
  }

  @Test
  void recordsAcknowledgedAfterTheirLockRanOutNameASlowAcknowledgingApplication() {
    DiagnosisReport report =
        diagnose(
            quickThen(
                ShareSpans.redelivered(
                    "jobs", 1_000, 5, "accept", "InvalidRecordStateException", 30_011)));

    Finding top = report.findings().get(0);
    assertThat(top.knob()).isEqualTo("slow acknowledging application");
    assertThat(top.evidence())
        .containsEntry("acknowledged after the lock ran out", "5 deliveries")
        .containsKey("held from acquisition to acknowledgement (K - R), median");
  }

  @Test
  void aTailOfRecordsDeliveredOnceNamesNoRedelivery() {
    DiagnosisReport report = diagnose(ShareSpans.records("jobs", 200, 0, 0));

    assertThat(report.findings())
        .extracting(Finding::knob)
        .doesNotContain(
            "lock timeout: group.share.record.lock.duration.ms", "slow acknowledging application");
  }
}
