package dev.klat.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

class RequiredToolTest {

  @Test
  void aMissingToolSkipsLocallyWithItsReason() {
    assertThatThrownBy(
            () -> RequiredTool.check(false, "chromium is not installed", "X's step", false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("X's step skipped: chromium is not installed")
        .hasMessageContaining("./klat test installs it");
  }

  @Test
  void aMissingToolFailsUnderCi() {
    assertThatThrownBy(
            () -> RequiredTool.check(false, "chromium is not installed", "X's step", true))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CI=true")
        .hasMessageContaining("chromium is not installed: X's step cannot run");
  }

  @Test
  void anInstalledToolPassesEitherWay() {
    assertThatCode(() -> RequiredTool.check(true, "unused", "X's step", true))
        .doesNotThrowAnyException();
    assertThatCode(() -> RequiredTool.check(true, "unused", "X's step", false))
        .doesNotThrowAnyException();
  }

  @Test
  void findsTheFirstExecutableOnThePath(@TempDir Path dir) throws Exception {
    Path notExecutable = Files.createDirectories(dir.resolve("a")).resolve("promtool");
    Files.writeString(notExecutable, "");
    Path executable = Files.createDirectories(dir.resolve("b")).resolve("promtool");
    Files.writeString(executable, "#!/bin/sh\n");
    assertThat(executable.toFile().setExecutable(true)).isTrue();
    String path = dir.resolve("a") + "::" + dir.resolve("b");
    assertThat(RequiredTool.PROMTOOL.find(Map.of("PATH", path))).isEqualTo(executable);
  }
}
