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
    int[] used = new int[256];
    pool.give(used);

    assertThat(pool.take()).isSameAs(used);
    assertThat(pool.take()).isNotSameAs(used);
  }

  @Test
  void anEmptyPoolMakesArraysAsLongAsTheLastOneGivenBack() {
    SendTimesPool pool = new SendTimesPool();
    assertThat(pool.take()).hasSize(SendTimesPool.INITIAL_LENGTH);

    pool.give(new int[256]);
    pool.take();

    assertThat(pool.take()).hasSize(256);
  }

  @Test
  void aFullPoolAndAnOversizedArrayAreLeftToTheGarbageCollector() {
    SendTimesPool pool = new SendTimesPool();
    int[] oversized = new int[SendTimesPool.MAX_POOLED_LENGTH + 1];
    pool.give(oversized);
    Set<int[]> given = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int i = 0; i < SendTimesPool.SLOTS + 10; i++) {
      int[] times = new int[32];
      given.add(times);
      pool.give(times);
    }

    int pooled = 0;
    for (int i = 0; i < SendTimesPool.SLOTS + 10; i++) {
      int[] taken = pool.take();
      assertThat(taken).isNotSameAs(oversized);
      if (given.contains(taken)) {
        pooled++;
      }
    }
    assertThat(pooled).isEqualTo(SendTimesPool.SLOTS);
  }
}
