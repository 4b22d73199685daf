package dev.klat.agent.weave;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.TestStateHolder;
import org.junit.jupiter.api.Test;

class StatesTest {

  @Test
  void anObjectWovenAsItLoadedKeepsItsStateInItsField() {
    TestStateHolder holder = new TestStateHolder();
    States.set(holder, "state");
    assertThat(holder.klat$state()).isEqualTo("state");
    assertThat(States.get(holder)).isEqualTo("state");
  }

  @Test
  void anObjectOfAClassRetransformedWithoutTheFieldKeepsItsStateInTheMap() {
    // What a class loaded before the agent attached is: hooks woven, no StateHolder field.
    Object retransformed = new Object();
    assertThat(States.get(retransformed)).isNull();
    States.set(retransformed, "state");
    assertThat(States.get(retransformed)).isEqualTo("state");
  }
}
