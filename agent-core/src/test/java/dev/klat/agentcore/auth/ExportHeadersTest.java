package dev.klat.agentcore.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.model.SettingValueException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ExportHeadersTest {

  @Test
  void readsTheOtelFormatTrimmedAndPercentDecoded() {
    Map<String, String> headers =
        ExportHeaders.parse(
            " Authorization = Bearer%20abc+def== ,\tX-Tenant=t%C3%A9nant , X-List=a%2Cb%3Dc,");

    assertThat(headers)
        .containsExactly(
            Map.entry("Authorization", "Bearer abc+def=="),
            Map.entry("X-Tenant", "ténant"),
            Map.entry("X-List", "a,b=c"));
  }

  @Test
  void nothingSetIsNoHeaderAndAnEmptyValueIsKept() {
    assertThat(ExportHeaders.parse(null)).isEmpty();
    assertThat(ExportHeaders.parse("  ")).isEmpty();
    assertThat(ExportHeaders.parse("X-Empty=")).containsExactly(Map.entry("X-Empty", ""));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "Bearer s3cr3tvalue|entry 1 of 1 has no '='",
        "a=b,s3cr3tvalue|entry 2 of 2 has no '='",
        "=s3cr3tvalue|no header name",
        "X Token=s3cr3tvalue|character HTTP does not allow",
        "X-Token=s3cr3tvalue%2|'%' not followed by two hex digits",
        "X-Token=s3cr3tvalue%ZZ|'%' not followed by two hex digits",
        "X-Token=s3cr3tvalue%FF|not UTF-8",
        "X-Token=s3cr3tvalue%0D%0AX-Evil: 1|control character",
        "X-Token=s3cr3tvalue,x-token=other|already sets",
        "Content-Type=s3cr3tvalue|sets Content-Type, which the exporter sets itself",
        "Host=s3cr3tvalue|which the exporter sets itself"
      })
  void anInvalidEntryIsRefusedWithoutQuotingIt(String list, String problem) {
    assertThatThrownBy(() -> ExportHeaders.parse(list))
        .isInstanceOf(SettingValueException.class)
        .hasMessageContaining(problem)
        .hasMessageNotContaining("s3cr3tvalue")
        .hasMessageNotContaining("other");
  }

  @ParameterizedTest
  @ValueSource(strings = {"authorization", "AUTHORIZATION"})
  void hasIgnoresCase(String name) {
    assertThat(ExportHeaders.has(Map.of("Authorization", "x"), name)).isTrue();
  }

  @Test
  void userInfoBecomesBasicAuthenticationAndIsStrippedFromTheUrl() {
    assertThat(UserInfo.basicAuthorization("user:pa%3As+s")).isEqualTo("Basic dXNlcjpwYTpzK3M=");
    assertThat(UserInfo.strip("https://user:pass@host:4318/otlp"))
        .isEqualTo("https://host:4318/otlp");
    assertThat(UserInfo.strip("https://host:4318/a@b")).isEqualTo("https://host:4318/a@b");
    assertThat(UserInfo.raw("https://u:p@ss@host:4318/a@b")).isEqualTo("u:p@ss");
    assertThat(UserInfo.raw("https://host:4318/a@b")).isNull();
    assertThat(Secrets.redactUserInfo("https://user:pa@ss@host:4318/x"))
        .isEqualTo("https://***@host:4318/x");
    assertThat(Secrets.redactUserInfo("user:pass@host")).isEqualTo("***@host");
    assertThat(Secrets.redactUserInfo("http://host:4318")).isEqualTo("http://host:4318");
  }
}
