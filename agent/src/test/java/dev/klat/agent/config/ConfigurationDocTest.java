package dev.klat.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.SettingTableCheck;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link ConfigKey} to the naming rule and the key table in docs/configuration.md in step
 * with it: environment variable, type, default and old spellings ({@link SettingTableCheck}).
 */
// A docs table against an enum: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class ConfigurationDocTest {

  @Test
  void everyKeyFollowsTheRuleAndHasItsRowInTheDocs() {
    assertThat(SettingTableCheck.problems(ConfigKey.values(), 1, "", "docs/configuration.md"))
        .isEmpty();
    assertThat(ConfigKey.values()).allMatch(k -> k.setting.key().startsWith(ConfigKey.PREFIX));
  }
}
