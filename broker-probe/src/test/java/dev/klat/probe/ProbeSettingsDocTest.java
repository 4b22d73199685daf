package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.SettingNames;
import dev.klat.testsupport.SettingTableCheck;
import dev.klat.testsupport.SettingTableCheck.Setting;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link ProbeKey} to the naming rule and the settings table of docs/broker-probe.md in step
 * with it: environment variable, type and default.
 */
class ProbeSettingsDocTest {

  private static List<Setting> table() {
    return Arrays.stream(ProbeKey.values())
        .map(
            k ->
                new Setting(
                    k.key,
                    k.envName,
                    k.type.describe(),
                    k.defaultValue,
                    List.of(k.oldKeys),
                    Arrays.stream(k.oldKeys).map(SettingNames::envName).toList()))
        .toList();
  }

  @Test
  void everyKeyFollowsTheNamingRule() {
    assertThat(SettingTableCheck.namingProblems(table(), 1, "")).isEmpty();
  }

  @Test
  void noTwoKeysShareAnEnvironmentVariable() {
    assertThat(SettingTableCheck.envNameCollisions(table())).isEmpty();
  }

  @Test
  void everyKeyHasOneRowWithItsEnvironmentVariableTypeAndDefault() {
    assertThat(
            SettingTableCheck.docProblems(
                List.of(SettingTableCheck.repositoryFile("docs/broker-probe.md")), table()))
        .isEmpty();
  }

  @Test
  void everyDefaultIsAValueOfItsType() {
    for (ProbeKey key : ProbeKey.values()) {
      key.type.check(key.defaultValue);
    }
  }
}
