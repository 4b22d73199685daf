package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SendTimesPoolTest {

  @Test
  void anArrayGivenBackIsTakenAgainInsteadOfANewOne() {
    SendTimesPool pool = new SendTimesPool();
    long[] used = new long[256];
    pool.give(used);

    assertThat(pool.take()).isSameAs(used);
    assertThat(pool.take()).isNotSameAs(used);
  }

  @Test
  void anEmptyPoolMakesArraysAsLongAsTheLastOneGivenBack() {
    SendTimesPool pool = new SendTimesPool();
    assertThat(pool.take()).hasSize(SendTimesPool.INITIAL_LENGTH);

    pool.give(new long[256]);
    pool.take();

    assertThat(pool.take()).hasSize(256);
  }

  @Test
  void aFullPoolAndAnOversizedArrayAreLeftToTheGarbageCollector() {
    SendTimesPool pool = new SendTimesPool();
    long[] oversized = new long[SendTimesPool.MAX_POOLED_LENGTH + 1];
    pool.give(oversized);
    Set<long[]> given = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int i = 0; i < SendTimesPool.SLOTS + 10; i++) {
      long[] times = new long[32];
      given.add(times);
      pool.give(times);
    }

    int pooled = 0;
    for (int i = 0; i < SendTimesPool.SLOTS + 10; i++) {
      long[] taken = pool.take();
      assertThat(taken).isNotSameAs(oversized);
      if (given.contains(taken)) {
        pooled++;
      }
    }
    assertThat(pooled).isEqualTo(SendTimesPool.SLOTS);
  }
}
