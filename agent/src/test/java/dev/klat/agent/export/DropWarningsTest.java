package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agentcore.clock.FixedTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DropWarningsTest {

  @Test
  void warnsWithTheCountSinceTheLastWarningAndTheTotal() {
    List<String> lines = new ArrayList<>();
    FixedTime time = new FixedTime(0);
    DropWarnings warnings = new DropWarnings(new RateLimitedLog(lines::add, time), 100);
    warnings.check(0, 0);
    assertThat(lines).isEmpty();
    warnings.check(3, 0);
    assertThat(lines).singleElement().asString().contains("3 spans dropped", "3 in total");
    warnings.check(3, 0);
    assertThat(lines).hasSize(1);
    warnings.check(3, 1);
    assertThat(lines.get(1)).contains("more than 100 metric series");
  }
}
