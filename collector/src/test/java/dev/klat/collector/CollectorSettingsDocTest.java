package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.SettingTableCheck;
import dev.klat.testsupport.SettingTableCheck.Setting;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link CollectorKey} to the naming rule and the settings tables of docs/collector.md (and
 * docs/scale-out.md, which documents the {@code spans.kafka} keys with the layout they serve) in
 * step with it: environment variable, type, default and old spellings.
 */
class CollectorSettingsDocTest {

  private static final List<Setting> TABLE = SettingTableCheck.table(CollectorKey.values());

  @Test
  void everyKeyFollowsTheNamingRule() {
    assertThat(SettingTableCheck.namingProblems(TABLE, 0, CollectorConfig.ENV_PREFIX)).isEmpty();
  }

  @Test
  void noTwoKeysShareAnEnvironmentVariable() {
    assertThat(SettingTableCheck.envNameCollisions(TABLE)).isEmpty();
  }

  @Test
  void everyKeyHasOneRowWithItsEnvironmentVariableTypeDefaultAndOldSpellings() {
    assertThat(
            SettingTableCheck.docProblems(
                List.of(
                    SettingTableCheck.repositoryFile("docs/collector.md"),
                    SettingTableCheck.repositoryFile("docs/scale-out.md")),
                TABLE))
        .isEmpty();
  }

  @Test
  void everyDefaultIsAValueOfItsType() {
    for (CollectorKey key : CollectorKey.values()) {
      key.type.check(key.defaultValue);
    }
  }
}
