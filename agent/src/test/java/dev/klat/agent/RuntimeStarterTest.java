package dev.klat.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.config.AgentConfig;
import dev.klat.agentcore.log.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RuntimeStarterTest {

  @AfterEach
  void noRuntimeLeftForOtherTests() {
    AgentRuntime.set(null);
  }

  @Test
  void theRuntimeStartsOnTheFirstCallOnlyAndNotBefore() {
    AgentRuntime.set(null);
    Map<String, String> sys = new HashMap<>();
    sys.put("klat.endpoint", "http://127.0.0.1:9");
    sys.put("klat.log.level", "debug");
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    AgentLog log =
        new AgentLog(
            AgentLog.Level.DEBUG, new PrintStream(logged, true, StandardCharsets.UTF_8), null);
    RuntimeStarter starter = new RuntimeStarter(AgentConfig.load(sys, null, log), 42L, log);

    assertThat(AgentRuntime.get()).isNull();
    assertThat(starter.started()).isTrue();
    AgentRuntime first = AgentRuntime.get();
    assertThat(first).isNotNull();
    assertThat(first.instanceId).isEqualTo(42L);
    assertThat(starter.started()).isTrue();

    assertThat(AgentRuntime.get()).isSameAs(first);
    String output = new String(logged.toByteArray(), StandardCharsets.UTF_8);
    assertThat(output.split("exporter started in", -1)).hasSize(2);
    assertThat(output).doesNotContain("ERROR");
  }
}
