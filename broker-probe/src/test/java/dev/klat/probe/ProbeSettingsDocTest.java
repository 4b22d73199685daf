package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.SettingTableCheck;
import dev.klat.testsupport.SettingTableCheck.Setting;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link ProbeKey} to the naming rule and the settings table of docs/broker-probe.md in step
 * with it: environment variable, type and default.
 */
class ProbeSettingsDocTest {

  private static final List<Setting> TABLE = SettingTableCheck.table(ProbeKey.values());

  @Test
  void everyKeyFollowsTheNamingRule() {
    assertThat(SettingTableCheck.namingProblems(TABLE, 1, "")).isEmpty();
  }

  @Test
  void noTwoKeysShareAnEnvironmentVariable() {
    assertThat(SettingTableCheck.envNameCollisions(TABLE)).isEmpty();
  }

  @Test
  void everyKeyHasOneRowWithItsEnvironmentVariableTypeAndDefault() {
    assertThat(
            SettingTableCheck.docProblems(
                List.of(SettingTableCheck.repositoryFile("docs/broker-probe.md")), TABLE))
        .isEmpty();
  }

  @Test
  void everyDefaultIsAValueOfItsType() {
    for (ProbeKey key : ProbeKey.values()) {
      key.type.check(key.defaultValue);
    }
  }
}
