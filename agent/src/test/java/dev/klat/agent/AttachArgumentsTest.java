package dev.klat.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AttachArgumentsTest {

  @AfterEach
  void clear() {
    System.clearProperty("klat.test.attach.one");
    System.clearProperty("klat.test.attach.two");
    System.clearProperty("klat.export.headers");
  }

  @Test
  void aHeaderListKeepsItsCommasAndARefusedPartHidesItsValue() {
    AttachArguments.applyAsSystemProperties(
        "klat.export.headers=X-A=1,Authorization=Bearer%20tok3n, klat.test.attach.one=x");

    assertThat(System.getProperty("klat.export.headers"))
        .isEqualTo("X-A=1,Authorization=Bearer%20tok3n");
    assertThat(System.getProperty("klat.test.attach.one")).isEqualTo("x");
    assertThatThrownBy(
            () -> AttachArguments.applyAsSystemProperties("klat.endpoint=x,Authorization=tok3n"))
        .hasMessageContaining("'Authorization=...'")
        .hasMessageNotContaining("tok3n");
  }

  @Test
  void settingsBecomeSystemProperties() {
    AttachArguments.applyAsSystemProperties(
        "klat.test.attach.one=http://host:4318, klat.test.attach.two=0.5");

    assertThat(System.getProperty("klat.test.attach.one")).isEqualTo("http://host:4318");
    assertThat(System.getProperty("klat.test.attach.two")).isEqualTo("0.5");
  }

  @Test
  void nothingToApplyIsFine() {
    AttachArguments.applyAsSystemProperties(null);
    AttachArguments.applyAsSystemProperties(" ");
    assertThat(System.getProperty("klat.test.attach.one")).isNull();
  }

  @Test
  void aPartThatIsNotAKlatSettingIsRefusedByName() {
    assertThatThrownBy(() -> AttachArguments.applyAsSystemProperties("user.home=/tmp"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'user.home=...' is not klat.key=value");
    assertThatThrownBy(() -> AttachArguments.applyAsSystemProperties("klat.endpoint"))
        .hasMessageContaining("'klat.endpoint'");
  }
}
