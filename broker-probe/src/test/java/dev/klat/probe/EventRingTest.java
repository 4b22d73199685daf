package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class EventRingTest {

  @Test
  void drainsEventsInOrderWithEveryField() {
    EventRing ring = new EventRing(8);
    Object partition = new Object();
    ring.offer(EventRing.APPEND, partition, 3, 10, 12, 1_000, RequestTimes.pack(250, 40));
    ring.offer(EventRing.HIGH_WATERMARK, partition, 3, 0, 13, 2_000, RequestTimes.UNKNOWN);
    List<String> seen = new ArrayList<>();
    int drained =
        ring.drain(
            (kind, p, epoch, first, last, nanos, request) ->
                seen.add(
                    kind
                        + ":"
                        + (p == partition)
                        + ":"
                        + epoch
                        + ":"
                        + first
                        + ":"
                        + last
                        + ":"
                        + nanos
                        + ":"
                        + RequestTimes.queueMicros(request)
                        + "/"
                        + RequestTimes.localMicros(request)));
    assertThat(drained).isEqualTo(2);
    assertThat(seen).containsExactly("1:true:3:10:12:1000:250/40", "2:true:3:0:13:2000:-1/-1");
    assertThat(ring.drain((k, p, e, f, l, n, r) -> {})).isZero();
  }

  @Test
  void aFullRingDropsAndCountsInsteadOfWaiting() {
    EventRing ring = new EventRing(4);
    for (int i = 0; i < 4; i++) {
      assertThat(ring.offer(EventRing.APPEND, "tp", 0, i, i, i, RequestTimes.UNKNOWN)).isTrue();
    }
    assertThat(ring.offer(EventRing.APPEND, "tp", 0, 9, 9, 9, RequestTimes.UNKNOWN)).isFalse();
    assertThat(ring.dropped()).isEqualTo(1);
    assertThat(ring.drain((k, p, e, f, l, n, r) -> {})).isEqualTo(4);
    // Slots freed by the drain are used again.
    assertThat(ring.offer(EventRing.APPEND, "tp", 0, 5, 5, 5, RequestTimes.UNKNOWN)).isTrue();
  }

  @Test
  void capacityIsRoundedUpToAPowerOfTwo() {
    assertThat(new EventRing(1000).capacity()).isEqualTo(1024);
    assertThat(new EventRing(1024).capacity()).isEqualTo(1024);
  }

  @Test
  void concurrentProducersLoseNothingTheRingHadRoomFor() throws Exception {
    EventRing ring = new EventRing(1 << 16);
    int threads = 4;
    int perThread = 10_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> producers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final long base = t * 1_000_000L;
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < perThread; i++) {
                  ring.offer(
                      EventRing.APPEND, "tp", 0, base + i, base + i, i, RequestTimes.UNKNOWN);
                }
              });
      thread.start();
      producers.add(thread);
    }
    long[] sum = {0};
    int[] count = {0};
    start.countDown();
    boolean running = true;
    while (running) {
      running = producers.stream().anyMatch(Thread::isAlive);
      ring.drain(
          (k, p, e, first, last, n, r) -> {
            sum[0] += first;
            count[0]++;
          });
    }
    ring.drain(
        (k, p, e, first, last, n, r) -> {
          sum[0] += first;
          count[0]++;
        });
    long expected = 0;
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i++) {
        expected += t * 1_000_000L + i;
      }
    }
    assertThat(count[0] + ring.dropped()).isEqualTo((long) threads * perThread);
    if (ring.dropped() == 0) {
      assertThat(sum[0]).isEqualTo(expected);
    }
  }
}
