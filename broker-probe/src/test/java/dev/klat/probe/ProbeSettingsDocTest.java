package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.SettingTableCheck;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link ProbeKey} to the naming rule and the settings table of docs/broker-probe.md in step
 * with it: environment variable, type and default ({@link SettingTableCheck}).
 */
// A docs table against an enum: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class ProbeSettingsDocTest {

  @Test
  void everyKeyFollowsTheRuleAndHasItsRowInTheDocs() {
    assertThat(SettingTableCheck.problems(ProbeKey.values(), 1, "", "docs/broker-probe.md"))
        .isEmpty();
  }
}
