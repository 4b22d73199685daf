package dev.klat.probe.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PushQueueTest {

  @Test
  void refusesBeyondItsCount() {
    PushQueue queue = new PushQueue(2, 1 << 20);
    assertThat(queue.offer(push(10))).isTrue();
    assertThat(queue.offer(push(10))).isTrue();
    assertThat(queue.offer(push(10))).isFalse();
    assertThat(queue.poll()).isNotNull();
    assertThat(queue.offer(push(10))).isTrue();
    assertThat(queue.size()).isEqualTo(2);
  }

  @Test
  void refusesBeyondItsBytesAndGivesThemBackWhenTaken() {
    Push big = push(1000);
    PushQueue queue = new PushQueue(100, 2 * big.bytes() + 10);
    assertThat(queue.offer(big)).isTrue();
    assertThat(queue.offer(push(1000))).isTrue();
    assertThat(queue.offer(push(1000))).isFalse();
    // A refused push reserved nothing: the count is as before.
    assertThat(queue.size()).isEqualTo(2);
    assertThat(queue.bytes()).isEqualTo(2 * big.bytes());
    assertThat(queue.poll()).isSameAs(big);
    assertThat(queue.bytes()).isEqualTo(big.bytes());
    assertThat(queue.offer(push(1000))).isTrue();
  }

  @Test
  void manyThreadsNeverPassTheBounds() throws Exception {
    PushQueue queue = new PushQueue(1000, 1 << 30);
    Thread[] threads = new Thread[4];
    int[] accepted = new int[threads.length];
    for (int t = 0; t < threads.length; t++) {
      int index = t;
      threads[t] =
          new Thread(
              () -> {
                for (int i = 0; i < 10_000; i++) {
                  if (queue.offer(push(1))) {
                    accepted[index]++;
                  }
                }
              });
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(accepted[0] + accepted[1] + accepted[2] + accepted[3]).isEqualTo(1000);
    assertThat(queue.size()).isEqualTo(1000);
  }

  @Test
  void longLabelsAreCut() {
    String longId = "x".repeat(100_000);
    Push push = new Push(new byte[1], "id", false, longId, longId, "a", "n", "v");
    assertThat(push.clientId).hasSize(Push.MAX_LABEL_CHARS);
    assertThat(push.principal).hasSize(Push.MAX_LABEL_CHARS);
  }

  private static Push push(int bytes) {
    return new Push(new byte[bytes], "id", false, "c", "User:ANONYMOUS", "127.0.0.1", "n", "v");
  }
}
