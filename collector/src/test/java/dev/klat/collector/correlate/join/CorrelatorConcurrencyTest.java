package dev.klat.collector.correlate.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerInstants;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class CorrelatorConcurrencyTest {

  @Test
  void concurrentSendersOfBothSidesJoinEveryRecordExactlyOnce() throws Exception {
    ConcurrentLinkedQueue<JoinedBreakdown> out = new ConcurrentLinkedQueue<>();
    Correlator c =
        new Correlator(
            new Correlator.Settings(Long.MAX_VALUE / 4, 100_000, 60_000_000_000L, 100),
            () -> 0L,
            BrokerInstants.logAppendTime(),
            out::add);
    int records = 20_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    // Two threads per side, each sending every record, so every span also arrives twice.
    for (int t = 0; t < 4; t++) {
      boolean producers = t % 2 == 0;
      Thread thread =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < records; i++) {
                  if (producers) {
                    c.offerProducer(Spans.producer(i, i, i + 1, i + 2));
                  } else {
                    c.offerConsumer(Spans.consumer(i, "g", i + 1.5, i + 3, i + 4));
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    go.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(out).hasSize(records);
    assertThat(out).extracting(j -> j.key().offset()).doesNotHaveDuplicates();
    assertThat(out)
        .allSatisfy(
            j ->
                assertThat(j.breakdown().sumOfSegmentsNanos())
                    .isEqualTo(j.breakdown().e2eNanos())
                    .isEqualTo(4_000_000));
    assertThat(c.stats().duplicates()).isEqualTo(2L * records);
  }
}
