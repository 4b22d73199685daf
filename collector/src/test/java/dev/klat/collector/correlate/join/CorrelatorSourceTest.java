package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.consumer;
import static dev.klat.collector.correlate.join.Spans.producer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.SlowProbe;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The source the join role hands with each span comes back with the breakdown it completes. */
class CorrelatorSourceTest {
  private long nowNanos = 0;
  private boolean awaiting;
  private final List<Long> sources = new ArrayList<>();

  private Correlator correlator() {
    return Correlator.sourced(
        new Correlator.Settings(10_000_000_000L, 100, 60_000_000_000L, 100),
        () -> nowNanos,
        SlowProbe.instants(() -> awaiting),
        (breakdown, source) -> sources.add(source));
  }

  @Test
  void theSpanThatCompletesTheJoinNamesTheSource() {
    Correlator c = correlator();
    c.offerProducer(producer(1, 0, 2, 10), 7);
    c.offerConsumer(consumer(1, "g", 5, 12, 15), 9);
    c.offerConsumer(consumer(2, "g", 5, 12, 15), 11);
    c.offerProducer(producer(2, 0, 2, 10), 12);

    assertThat(sources).containsExactly(9L, 12L);
  }

  @Test
  void aJoinWaitingForBrokerDataHoldsItsSourceBackUntilItIsComputed() {
    Correlator c = correlator();
    awaiting = true;
    c.offerProducer(producer(1, 0, 2, 10), 20);
    c.offerConsumer(consumer(1, "g", 5, 12, 15), 21);
    c.offerProducer(producer(2, 0, 2, 10), 30);
    c.offerConsumer(consumer(2, "g", 5, 12, 15), 31);

    assertThat(sources).isEmpty();
    assertThat(c.oldestWaitingSource(s -> s)).isEqualTo(21);
    assertThat(c.oldestWaitingSource(s -> s > 25 ? s : -1)).isEqualTo(31);

    awaiting = false;
    c.brokerDataArrived();
    assertThat(sources).containsExactly(21L, 31L);
    assertThat(c.oldestWaitingSource(s -> s)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void spansOfferedWithoutASourceReportNone() {
    Correlator c = correlator();
    c.offerProducer(producer(1, 0, 2, 10));
    c.offerConsumer(consumer(1, "g", 5, 12, 15));

    assertThat(sources).containsExactly(Correlator.NO_SOURCE);
  }
}
