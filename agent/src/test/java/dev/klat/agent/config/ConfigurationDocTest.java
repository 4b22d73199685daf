package dev.klat.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.SettingTableCheck;
import dev.klat.testsupport.SettingTableCheck.Setting;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link ConfigKey} to the naming rule and the key table in docs/configuration.md in step
 * with it: environment variable, type, default and old spellings.
 */
class ConfigurationDocTest {

  private static final List<Setting> TABLE = SettingTableCheck.table(ConfigKey.values());

  @Test
  void everyKeyFollowsTheNamingRule() {
    assertThat(SettingTableCheck.namingProblems(TABLE, 1, "")).isEmpty();
    assertThat(ConfigKey.values()).allMatch(k -> k.key.startsWith(ConfigKey.PREFIX));
  }

  @Test
  void noTwoKeysShareAnEnvironmentVariable() {
    assertThat(SettingTableCheck.envNameCollisions(TABLE)).isEmpty();
  }

  @Test
  void everyKeyHasOneRowWithItsEnvironmentVariableTypeDefaultAndOldSpellings() {
    assertThat(
            SettingTableCheck.docProblems(
                List.of(SettingTableCheck.repositoryFile("docs/configuration.md")), TABLE))
        .isEmpty();
  }
}
