package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProducerSpansTest {

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void theSpanNameIsMadeOncePerRunOfATopicAndIsRightAcrossTopics() {
    AgentRuntime runtime = TestRuntime.install();
    ProducerState state = new ProducerState(runtime, "client", null, null, null);

    String first = ProducerSpans.spanName(state, "orders");
    assertThat(first).isEqualTo("send orders");
    assertThat(ProducerSpans.spanName(state, new String("orders"))).isSameAs(first);
    assertThat(ProducerSpans.spanName(state, "payments")).isEqualTo("send payments");
    assertThat(ProducerSpans.spanName(state, "orders")).isEqualTo("send orders");
  }
}
