package dev.klat.collector.correlate.join;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostNamesTest {

  @Test
  void anInstanceIsNamedByItsIdInHexOnceAndZeroIsUnknown() {
    HostNames names = new HostNames(10);
    String first = names.name(0xABCL);
    assertThat(first).isEqualTo("0000000000000abc");
    assertThat(names.name(0xABCL)).isSameAs(first);
    assertThat(names.name(0)).isNull();
  }

  @Test
  void beyondItsLimitItForgetsAllAndStillNames() {
    HostNames names = new HostNames(2);
    String one = names.name(1);
    names.name(2);
    names.name(3);
    assertThat(names.name(1)).isEqualTo(one).isNotSameAs(one);
  }
}
