package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.consumer;
import static dev.klat.collector.correlate.join.Spans.producer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerInstants;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The join's side of the data attacks of issue 43. */
class HostileJoinTest {
  private final List<JoinedBreakdown> out = new ArrayList<>();
  private long nowNanos = 1_000_000_000_000L;

  private Correlator correlator() {
    return new Correlator(
        new Correlator.Settings(60_000_000_000L, 500_000, 60_000_000_000L, 100),
        () -> nowNanos,
        BrokerInstants.logAppendTime(),
        out::add);
  }

  @Test
  void fortyThousandGroupsOnOneRecordAreCappedAndCostLittle() {
    Correlator c = correlator();
    long started = System.nanoTime();
    for (int i = 0; i < 40_000; i++) {
      c.offerConsumer(consumer(1, "group-" + i, 5, 12, 15));
    }
    c.offerProducer(producer(1, 0, 2, 10));
    long tookNanos = System.nanoTime() - started;

    // join.max-groups-per-record's default: further groups are refused and counted.
    assertThat(out).hasSize(64);
    assertThat(c.stats().droppedSpans()).isEqualTo(40_000 - 64);
    // 7.5 s before the cap; a generous bound for a loaded CI machine.
    assertThat(tookNanos).isLessThan(2_000_000_000L);
  }
}
