package dev.klat.collector.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Section 9: commit's parts and the transaction-wait histogram, only where a record waited. */
public class TransactionPartsTest {
  private static final long MS = 1_000_000L;

  /** L at 2 ms, H at 3 ms, V at {@code visibleMs} (none when negative), read at 100 ms. */
  public static JoinedBreakdown breakdown(String group, double visibleMs) {
    long s = 1_000_000_000L;
    Instants.Builder b =
        Instants.builder()
            .send(s)
            .drain(s + MS)
            .append(s + 2 * MS, EstimationMethod.BROKER_PROBE)
            .commit(s + 3 * MS, EstimationMethod.BROKER_PROBE)
            .fetchRequest(s + MS)
            .fetchResponse(s + 99 * MS)
            .poll(s + 100 * MS);
    if (visibleMs >= 0) {
      b.visible(s + (long) (visibleMs * MS), EstimationMethod.BROKER_PROBE);
    }
    return new JoinedBreakdown(
        new RecordKey("orders", 0, 0),
        group,
        1,
        2,
        3,
        4,
        Breakdown.compute(b.build()),
        new ClockOffset("a", "b", 0, 0, 0, 0),
        null,
        Set.of(),
        false,
        1,
        -1,
        -1,
        -1,
        ProducerEvidence.UNKNOWN,
        ConsumerEvidence.UNKNOWN);
  }

  @Test
  void withoutATransactionWaitThereAreNoParts() {
    RecentBreakdowns recent = new RecentBreakdowns(100);
    recent.add(breakdown("g", -1), 0);
    recent.add(breakdown("g", 3), 0); // read_committed, but V = H

    assertThat(recent.commitParts(null, null, 1_000 * MS, 0)).isNull();
  }

  @Test
  void commitSplitsIntoReplicationAndTheTransactionWait() {
    RecentBreakdowns recent = new RecentBreakdowns(100);
    for (int i = 0; i < 9; i++) {
      recent.add(breakdown("g", -1), 0);
    }
    recent.add(breakdown("g", 83), 0);

    RecentBreakdowns.CommitParts parts = recent.commitParts("orders", "g", 1_000 * MS, 0);

    assertThat(parts.count()).isEqualTo(10);
    assertThat(parts.replication().p50Nanos()).isEqualTo(MS);
    assertThat(parts.replication().p99Nanos()).isEqualTo(MS);
    assertThat(parts.transaction().p50Nanos()).isZero();
    assertThat(parts.transaction().p99Nanos()).isEqualTo(80 * MS);
    assertThat(recent.commitParts("orders", "other", 1_000 * MS, 0)).isNull();
  }

  @Test
  void theTransactionWaitHistogramHasSeriesOnlyForGroupsThatReadTransactionsCommitted() {
    BreakdownMetrics metrics = new BreakdownMetrics(10, () -> 0L);
    metrics.record(breakdown("plain", -1));
    metrics.record(breakdown("committed", 43));

    assertThat(metrics.transactionWaitSeries()).hasSize(1);
    Exposition.Series series = metrics.transactionWaitSeries().get(0);
    assertThat(series.labels())
        .containsEntry("topic", "orders")
        .containsEntry("group", "committed");
    assertThat(series.sum()).isEqualTo(0.040, org.assertj.core.data.Offset.offset(1e-9));
  }
}
