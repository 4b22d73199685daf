package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BrokerHistoryTest {
  static final long S = 1_000_000_000L;
  static final long T0 = 1_800_000_000L * S;
  static final long STALE = 30 * S;

  /**
   * A reading where every Produce phase has {@code count} requests and all-time mean {@code mean}.
   */
  static Reading produce(long atNanos, long count, double meanMs) {
    Reading r = new Reading(atNanos);
    for (Request request : Phase.REQUESTS) {
      for (Phase phase : Phase.ALL) {
        r.count(request, phase, request == Request.PRODUCE ? count : 0);
        r.meanMs(request, phase, request == Request.PRODUCE ? meanMs : 0);
      }
    }
    return r;
  }

  static BrokerHistory history() {
    return new BrokerHistory(600 * S, 1000);
  }

  @Test
  void intervalMeanComesFromTheDeltasOfTheAllTimeMeans() {
    BrokerHistory h = history();
    h.add(produce(T0, 100, 2.0)); // 100 requests, 200 ms in all
    h.add(produce(T0 + 5 * S, 150, 3.0)); // 50 more, 450 - 200 = 250 ms: 5 ms each
    RequestTimings t = h.lookup(Request.PRODUCE, T0 + 2 * S, STALE);
    assertThat(t).isNotNull();
    assertThat(t.requests()).isEqualTo(50);
    assertThat(t.totalNanos()).isEqualTo(5_000_000L);
    assertThat(t.localNanos()).isEqualTo(5_000_000L);
    assertThat(t.intervalStartEpochNanos()).isEqualTo(T0);
    assertThat(t.intervalEndEpochNanos()).isEqualTo(T0 + 5 * S);
    assertThat(h.lookup(Request.FETCH_CONSUMER, T0 + 2 * S, STALE)).isNull(); // no requests
  }

  @Test
  void eachPhaseUsesItsOwnCounts() {
    BrokerHistory h = history();
    Reading a = produce(T0, 10, 1.0);
    Reading b = produce(T0 + 5 * S, 20, 1.5); // 10 requests of 2 ms
    // A scrape that fell between two histogram updates: local saw one request more.
    b.count(Request.PRODUCE, Phase.LOCAL, 21);
    b.meanMs(Request.PRODUCE, Phase.LOCAL, (10 * 1.0 + 10 * 2 + 8) / 21.0);
    h.add(a);
    h.add(b);
    RequestTimings t = h.latest(Request.PRODUCE);
    assertThat(t.totalNanos()).isEqualTo(2_000_000L);
    assertThat(t.localNanos()).isEqualTo(Math.round((10 * 2 + 8) / 11.0 * 1e6));
  }

  @Test
  void aCountThatGoesDownStartsOverWithoutAnInterval() {
    BrokerHistory h = history();
    h.add(produce(T0, 1000, 4.0));
    h.add(produce(T0 + 5 * S, 1100, 4.0 + 100.0 / 1100)); // 100 requests of 5 ms
    h.add(produce(T0 + 10 * S, 30, 9.0)); // restarted: 30 requests since
    assertThat(h.size(Request.PRODUCE)).isEqualTo(1);
    assertThat(h.resets()).isEqualTo(1);
    h.add(produce(T0 + 15 * S, 40, (30 * 9.0 + 10 * 1.0) / 40)); // 10 requests of 1 ms
    assertThat(h.size(Request.PRODUCE)).isEqualTo(2);
    assertThat(h.latest(Request.PRODUCE).totalNanos()).isEqualTo(1_000_000L);
    assertThat(h.latest(Request.PRODUCE).requests()).isEqualTo(10);
    // The restart interval has no data: the lookup falls back to the interval before it.
    RequestTimings during = h.lookup(Request.PRODUCE, T0 + 7 * S, STALE);
    assertThat(during.intervalEndEpochNanos()).isEqualTo(T0 + 5 * S);
    assertThat(during.totalNanos()).isEqualTo(5_000_000L);
  }

  @Test
  void intervalsWithoutRequestsAreSkippedAndLookupsFallBackWithinTheStaleLimit() {
    BrokerHistory h = history();
    h.add(produce(T0, 10, 2.0));
    h.add(produce(T0 + 5 * S, 20, 3.0)); // 10 requests of 4 ms
    h.add(produce(T0 + 10 * S, 20, 3.0)); // none
    h.add(produce(T0 + 15 * S, 20, 3.0)); // none
    assertThat(h.size(Request.PRODUCE)).isEqualTo(1);
    RequestTimings t = h.lookup(Request.PRODUCE, T0 + 12 * S, STALE);
    assertThat(t.totalNanos()).isEqualTo(4_000_000L);
    assertThat(h.lookup(Request.PRODUCE, T0 + 5 * S + STALE, STALE)).isSameAs(t);
    assertThat(h.lookup(Request.PRODUCE, T0 + 5 * S + STALE + 1, STALE)).isNull();
  }

  @Test
  void lookupsInsideAfterAndBeforeTheRing() {
    BrokerHistory h = history();
    h.add(produce(T0, 10, 1.0));
    h.add(produce(T0 + 5 * S, 20, 1.5)); // [T0, T0+5s]: 2 ms
    h.add(produce(T0 + 10 * S, 30, 2.0)); // [T0+5s, T0+10s]: 3 ms
    assertThat(h.lookup(Request.PRODUCE, T0 + S, STALE).totalNanos()).isEqualTo(2_000_000L);
    assertThat(h.lookup(Request.PRODUCE, T0 + 5 * S, STALE).totalNanos()).isEqualTo(2_000_000L);
    assertThat(h.lookup(Request.PRODUCE, T0 + 6 * S, STALE).totalNanos()).isEqualTo(3_000_000L);
    // After the newest scrape: the newest interval, until it is stale.
    assertThat(h.lookup(Request.PRODUCE, T0 + 20 * S, STALE).totalNanos()).isEqualTo(3_000_000L);
    assertThat(h.lookup(Request.PRODUCE, T0 + 10 * S + STALE + 1, STALE)).isNull();
    // Before the oldest interval: nothing is known.
    assertThat(h.lookup(Request.PRODUCE, T0 - 1, STALE)).isNull();
  }

  @Test
  void nanOrMissingValuesGiveNoInterval() {
    BrokerHistory h = history();
    h.add(produce(T0, 10, 1.0));
    Reading b = produce(T0 + 5 * S, 20, 1.5);
    b.meanMs(Request.PRODUCE, Phase.REMOTE, Double.NaN);
    h.add(b);
    assertThat(h.size(Request.PRODUCE)).isZero();
    h.add(produce(T0 + 10 * S, 30, 2.0)); // the NaN scrape was the baseline: nothing yet
    assertThat(h.size(Request.PRODUCE)).isZero();
    h.add(produce(T0 + 15 * S, 40, 2.5));
    assertThat(h.latest(Request.PRODUCE).totalNanos()).isEqualTo(4_000_000L);
  }

  @Test
  void theRingKeepsOnlyTheHistoryWindowAndTheCap() {
    BrokerHistory h = new BrokerHistory(60 * S, 5);
    for (int i = 0; i <= 20; i++) {
      h.add(produce(T0 + i * 5 * S, 10L * (i + 1), 1.0));
    }
    assertThat(h.size(Request.PRODUCE)).isEqualTo(5);
    assertThat(h.latest(Request.PRODUCE).intervalEndEpochNanos()).isEqualTo(T0 + 100 * S);
    BrokerHistory window = new BrokerHistory(12 * S, 100);
    for (int i = 0; i <= 20; i++) {
      window.add(produce(T0 + i * 5 * S, 10L * (i + 1), 1.0));
    }
    assertThat(window.size(Request.PRODUCE)).isEqualTo(3); // ends at 90, 95, 100 s
    assertThat(window.lookup(Request.PRODUCE, T0 + 50 * S, 30 * S)).isNull();
  }

  @Test
  void aClockThatStepsBackIsIgnoredUntilItPassesTheBaseline() {
    BrokerHistory h = history();
    h.add(produce(T0, 10, 1.0));
    h.add(produce(T0 - S, 20, 1.5));
    assertThat(h.size(Request.PRODUCE)).isZero();
    h.add(produce(T0 + 5 * S, 20, 1.5));
    assertThat(h.latest(Request.PRODUCE).totalNanos()).isEqualTo(2_000_000L);
  }

  @Test
  void theStoreAnswersNullForUnknownBrokers() {
    TimingStore store = new TimingStore(STALE);
    BrokerHistory h = history();
    h.add(produce(T0, 10, 1.0));
    h.add(produce(T0 + 5 * S, 20, 1.5));
    store.put(1, h);
    assertThat(store.lookup(1, Request.PRODUCE, T0 + S)).isNotNull();
    assertThat(store.lookup(2, Request.PRODUCE, T0 + S)).isNull();
    store.remove(1);
    assertThat(store.lookup(1, Request.PRODUCE, T0 + S)).isNull();
  }

  @Test
  void theStoreAnswersTheNewestScrapesPartitionCounts() {
    TimingStore store = new TimingStore(STALE);
    BrokerHistory h1 = history();
    BrokerHistory h2 = history();
    store.put(1, h1);
    store.put(2, h2);
    Reading first = produce(T0, 10, 1.0);
    first.leaders(400);
    first.partitions(1200);
    first.underMinIsr(0);
    h1.add(first);
    Reading second = produce(T0 + 5 * S, 20, 1.5);
    second.leaders(410);
    second.partitions(1210);
    second.underMinIsr(2);
    h1.add(second);
    h2.add(produce(T0, 10, 1.0)); // an older rules file: no gauges

    assertThat(store.partitions(1)).isEqualTo(new BrokerTimings.Partitions(410, 1210, 2));
    assertThat(store.partitions(2)).isNull();
    assertThat(store.partitions(3)).isNull();
    assertThat(store.partitions()).containsOnlyKeys(1);
    Reading without = produce(T0 + 10 * S, 30, 1.5);
    h1.add(without); // the rules lost the gauges: unknown again, not the old values
    assertThat(store.partitions(1)).isNull();
    assertThat(BrokerTimings.NONE.partitions(1)).isNull();
  }

  static Reading replicating(long atNanos, long shrinks, long expands, long maxLag) {
    Reading r = produce(atNanos, 10, 1.0);
    r.isrShrinks(shrinks);
    r.isrExpands(expands);
    r.maxLagMessages(maxLag);
    return r;
  }

  @Test
  void theStoreAnswersTheIsrChangesSinceAMomentAndTheNewestLag() {
    TimingStore store = new TimingStore(STALE);
    BrokerHistory h1 = history();
    BrokerHistory h2 = history();
    store.put(1, h1);
    store.put(2, h2);
    h1.add(replicating(T0, 3, 3, 0));
    h1.add(replicating(T0 + 5 * S, 5, 3, 800));
    h1.add(replicating(T0 + 10 * S, 6, 4, 120));
    h2.add(produce(T0, 10, 1.0)); // an older rules file: none of them

    assertThat(store.replication(1, T0 + 1))
        .isEqualTo(
            new BrokerTimings.Replication(
                new BrokerTimings.Changes(3, false), new BrokerTimings.Changes(1, false), 120));
    assertThat(store.replication(1, T0 - 60 * S).isrShrinks())
        .isEqualTo(new BrokerTimings.Changes(3, true));
    assertThat(store.replication(2, T0)).isNull();
    assertThat(store.replication(3, T0)).isNull();
    assertThat(store.replication(T0)).containsOnlyKeys(1);
    assertThat(BrokerTimings.NONE.replication(1, T0)).isNull();

    // The clock stepped back: the lag is the newest, the ISR counts wait for the clock.
    h1.add(replicating(T0 + 7 * S, 9, 9, 40));
    assertThat(store.replication(1, T0 + 1).maxLagMessages()).isEqualTo(40);
    assertThat(store.replication(1, T0 + 1).isrShrinks().count()).isEqualTo(3);
  }

  @Test
  void lookupsDuringScrapesSeeWholeIntervalsOnly() throws Exception {
    TimingStore store = new TimingStore(STALE);
    BrokerHistory h = new BrokerHistory(60 * S, 50);
    store.put(1, h);
    int scrapes = 20_000;
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean done = new AtomicBoolean();
    Thread writer =
        new Thread(
            () -> {
              for (int i = 0; i < scrapes; i++) {
                // Every interval: 10 requests of exactly 3 ms.
                h.add(produce(T0 + i * S, 10L * (i + 1), 3.0));
              }
              done.set(true);
            });
    Runnable reader =
        () -> {
          Random random = new Random(42);
          try {
            while (!done.get()) {
              long at = T0 + (long) (random.nextDouble() * scrapes * S);
              RequestTimings t = store.lookup(1, Request.PRODUCE, at);
              if (t != null) {
                assertThat(t.requests()).isEqualTo(10);
                assertThat(t.totalNanos()).isEqualTo(3_000_000L);
                assertThat(t.intervalEndEpochNanos() - t.intervalStartEpochNanos()).isEqualTo(S);
              }
            }
          } catch (Throwable e) {
            failure.set(e);
          }
        };
    Thread r1 = new Thread(reader);
    Thread r2 = new Thread(reader);
    r1.start();
    r2.start();
    writer.start();
    writer.join();
    r1.join();
    r2.join();
    assertThat(failure.get()).isNull();
    assertThat(h.size(Request.PRODUCE)).isLessThanOrEqualTo(50);
  }
}
