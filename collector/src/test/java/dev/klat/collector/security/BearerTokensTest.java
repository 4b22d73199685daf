package dev.klat.collector.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokensTest {
  @TempDir Path dir;

  @Test
  void acceptsTheFilesTokensByNameAndTellsMissingMalformedAndUnknownApart() throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, "# agents\nagents = s3cret-1\n\n  prometheus=Zm9v+/bar==\n");
    BearerTokens tokens = BearerTokens.load("otlp.auth-tokens-file", file);

    assertThat(tokens.names()).containsExactly("agents", "prometheus");
    assertThat(tokens.check("Bearer s3cret-1"))
        .isEqualTo(new BearerTokens.Check(BearerTokens.Result.ACCEPTED, "agents"));
    assertThat(tokens.check("bearer Zm9v+/bar==").tokenName()).isEqualTo("prometheus");
    assertThat(tokens.check(null).result()).isEqualTo(BearerTokens.Result.MISSING);
    assertThat(tokens.check("Basic YTpi").result()).isEqualTo(BearerTokens.Result.MALFORMED);
    assertThat(tokens.check("Bearer two words").result()).isEqualTo(BearerTokens.Result.MALFORMED);
    assertThat(tokens.check("Bearer s3cret-2").result()).isEqualTo(BearerTokens.Result.UNKNOWN);
  }

  @Test
  void aBadFileStopsStartUpAndABadChangeKeepsTheTokensLoadedBeforeWithoutShowingAToken()
      throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, "agents=first\nother=has space\n");
    assertThatThrownBy(() -> BearerTokens.load("admin.auth-tokens-file", file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("admin.auth-tokens-file")
        .hasMessageContaining("line 2 (other)")
        .hasMessageNotContaining("has space");

    Files.writeString(file, "agents=first\n");
    BearerTokens tokens = BearerTokens.load("admin.auth-tokens-file", file);
    Files.writeString(file, "agents=second\nagents=third\n");
    tokens.reloadIfChanged();
    tokens.reloadIfChanged();
    assertThat(tokens.failures()).isEqualTo(1);
    assertThat(tokens.check("Bearer first").result()).isEqualTo(BearerTokens.Result.ACCEPTED);

    Files.writeString(file, "agents=second\n");
    tokens.reloadIfChanged();
    assertThat(tokens.check("Bearer first").result()).isEqualTo(BearerTokens.Result.UNKNOWN);
    assertThat(tokens.check("Bearer second").result()).isEqualTo(BearerTokens.Result.ACCEPTED);
  }
}
