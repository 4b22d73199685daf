package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SendTimesPoolTest {

  @Test
  void anArrayGivenBackIsTakenAgainInsteadOfANewOne() {
    SendTimesPool pool = new SendTimesPool();
    long[] used = new long[256];
    pool.give(used);

    assertThat(pool.take()).isSameAs(used);
    assertThat(pool.take()).isNotSameAs(used).hasSize(SendTimesPool.INITIAL_LENGTH);
  }

  @Test
  void aFullPoolAndAnOversizedArrayAreLeftToTheGarbageCollector() {
    SendTimesPool pool = new SendTimesPool();
    pool.give(new long[SendTimesPool.MAX_POOLED_LENGTH + 1]);
    for (int i = 0; i < SendTimesPool.SLOTS + 10; i++) {
      pool.give(new long[32]);
    }

    int pooled = 0;
    for (int i = 0; i < SendTimesPool.SLOTS + 10; i++) {
      if (pool.take().length == 32) {
        pooled++;
      }
    }
    assertThat(pooled).isEqualTo(SendTimesPool.SLOTS);
  }
}
