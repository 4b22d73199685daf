package dev.klat.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.testsupport.SettingTableCheck;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link CollectorKey} to the naming rule and the settings tables of docs/collector.md (and
 * docs/scale-out.md, which documents the {@code spans.kafka} keys with the layout they serve) in
 * step with it: environment variable, type, default and old spellings ({@link SettingTableCheck}).
 */
// A docs table against an enum: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class CollectorSettingsDocTest {

  @Test
  void everyKeyFollowsTheRuleAndHasItsRowInTheDocs() {
    assertThat(
            SettingTableCheck.problems(
                CollectorKey.values(),
                0,
                CollectorConfig.ENV_PREFIX,
                "docs/collector.md",
                "docs/scale-out.md"))
        .isEmpty();
  }
}
