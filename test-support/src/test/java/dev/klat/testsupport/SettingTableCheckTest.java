package dev.klat.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.SettingDef;
import dev.klat.model.SettingType;
import dev.klat.testsupport.SettingTableCheck.Setting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingTableCheckTest {

  private static Setting setting(String key, String type, String defaultValue, String... old) {
    return new Setting(
        key,
        env(key),
        type,
        defaultValue,
        List.of(old),
        List.of(old).stream().map(SettingTableCheckTest::env).toList());
  }

  private static String env(String key) {
    return "X_" + key.toUpperCase().replace('.', '_').replace('-', '_');
  }

  /** A table as the three modules write theirs. */
  enum Example {
    QUEUE_SIZE("x.queue-size", "x.queue.size");

    final SettingDef setting;

    Example(String key, String... oldKeys) {
      this.setting = new SettingDef("", key, SettingType.integer(1, 4096), "4", oldKeys);
    }
  }

  @Test
  void aTableEnumIsReadFromItsSettings() {
    assertThat(SettingTableCheck.table(Example.values()))
        .containsExactly(
            new Setting(
                "x.queue-size",
                "X_QUEUE_SIZE",
                SettingType.integer(1, 4096).toString(),
                "4",
                List.of("x.queue.size"),
                List.of()));
  }

  @Test
  void theNamingRuleIsCheckedKeyByKey() {
    List<Setting> good =
        List.of(
            setting("otlp.http.host", "host", "127.0.0.1"),
            setting("otlp.http.port", "port", "4318"),
            setting("otlp.max-body-bytes", "integer > 0", "1", "otlp.max.body.bytes"),
            setting("mode", "string", "all"));
    assertThat(SettingTableCheck.namingProblems(good, 0, "X_")).isEmpty();

    List<Setting> bad =
        List.of(
            setting("otlp.max.body.bytes", "integer > 0", "1"),
            setting("spans.kafka-x.topic", "topic", "t"),
            setting("brokers.exporter", "list", ""),
            setting("brokers.exporter.port", "port", ""),
            setting("Join.window", "duration", "1s"),
            new Setting("a.b", "X_A_B_", "string", "", List.of(), List.of()));
    assertThat(SettingTableCheck.namingProblems(bad, 0, "X_"))
        .containsExactlyInAnyOrder(
            "spans.kafka-x.topic: segment 'kafka-x' is not one lowercase word",
            "Join.window: segment 'Join' is not one lowercase word",
            "a.b: environment variable X_A_B_, not X_A_B",
            "brokers.exporter is a setting and a level of brokers.exporter.port",
            "otlp.max is a level of one setting only: join its words with dashes instead",
            "otlp.max.body is a level of one setting only: join its words with dashes instead",
            "spans.kafka-x is a level of one setting only: join its words with dashes instead",
            "brokers.exporter is a level of one setting only: join its words with dashes instead");
  }

  @Test
  void sharedEnvironmentVariablesAreFoundButAnOldSpellingMayShareItsOwn() {
    assertThat(
            SettingTableCheck.envNameCollisions(
                List.of(setting("a.b-c", "string", "", "a.b.c"), setting("a.d", "string", ""))))
        .isEmpty();
    assertThat(
            SettingTableCheck.envNameCollisions(
                List.of(setting("a.b-c", "string", ""), setting("a.b.c", "string", ""))))
        .containsExactly("X_A_B_C is the environment variable of a.b-c and a.b.c");
    assertThat(
            SettingTableCheck.envNameCollisions(
                List.of(setting("a.b-c", "string", ""), setting("a.d", "string", "", "a.b.c"))))
        .containsExactly("X_A_B_C is the environment variable of a.b-c and a.d");
  }

  @Test
  void theDocHasOneRowPerKeyWithItsEnvironmentTypeAndDefault(@TempDir Path dir) throws IOException {
    Path doc = dir.resolve("doc.md");
    Files.writeString(
        doc,
        """
        | key | environment variable | type | default | meaning |
        |---|---|---|---|---|
        | `a.b` | `X_A_B` | integer > 0 | `4` (four) | fine |
        | `a.c` | `X_A_C` | boolean | empty | wrong default |
        | `a.d` | `X_A_E` | string | `x\\|y` | wrong env |
        | `a.d` | `X_A_D` | string | `x\\|y` | twice |
        | `a.z` | `X_A_Z` | string | `z` | unknown |

        | key | old spellings |
        |---|---|
        | `a.b` | `a.bb`, `a.bbb` |

        | path | what |
        |---|---|
        | `a.c` | not a setting table |
        """);
    List<Setting> table =
        List.of(
            setting("a.b", "integer > 0", "4", "a.bb", "a.bbb"),
            setting("a.c", "boolean", "true", "a.cc"),
            setting("a.d", "string", "x|y"),
            setting("a.e", "string", null));
    assertThat(SettingTableCheck.docProblems(List.of(doc), table))
        .containsExactlyInAnyOrder(
            "doc.md, row `a.c`: default empty, not `true`",
            "doc.md, row `a.d`: environment variable `X_A_E`, not `X_A_D`",
            "doc.md, row `a.z`: no such key",
            "a.c: 0 rows of old spellings, for [a.cc]",
            "a.d: 2 rows in [" + doc + "], not 1",
            "a.e: 0 rows in [" + doc + "], not 1");
  }
}
