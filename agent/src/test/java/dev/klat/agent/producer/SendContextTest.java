package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SendContextTest {

  @Test
  void everyThreadKeepsItsOwnContextWhicheverThreadAskedFirst() throws InterruptedException {
    SendContext mine = SendContext.current();
    AtomicReference<SendContext> othersFirst = new AtomicReference<>();
    AtomicReference<SendContext> othersSecond = new AtomicReference<>();
    Thread other =
        new Thread(
            () -> {
              othersFirst.set(SendContext.current());
              othersSecond.set(SendContext.current());
            });
    other.start();
    other.join();

    assertThat(othersFirst.get()).isNotNull().isNotSameAs(mine).isSameAs(othersSecond.get());
    assertThat(SendContext.current()).isSameAs(mine);
  }

  @Test
  void aContextStartsWithNothingPending() throws InterruptedException {
    AtomicReference<SendContext> fresh = new AtomicReference<>();
    Thread other = new Thread(() -> fresh.set(SendContext.current()));
    other.start();
    other.join();

    assertThat(fresh.get().pending).isFalse();
    assertThat(fresh.get().sampled).isNull();
  }
}
