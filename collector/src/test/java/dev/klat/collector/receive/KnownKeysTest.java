package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.AttributeDef;
import dev.klat.model.SpanAttributes;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KnownKeysTest {
  @Test
  void everyKlatKeyIsFoundWithoutAllocationAndOthersStillDecode() {
    for (AttributeDef def : SpanAttributes.all()) {
      byte[] framed = ("xx" + def.name() + "yy").getBytes(StandardCharsets.UTF_8);
      assertThat(KnownKeys.of(framed, 2, framed.length - 4)).isSameAs(def.name());
    }
    byte[] other = "http.method\u00e9".getBytes(StandardCharsets.UTF_8);
    assertThat(KnownKeys.of(other, 0, other.length)).isEqualTo("http.method\u00e9");
    byte[] prefix = "klat.send".getBytes(StandardCharsets.UTF_8);
    assertThat(KnownKeys.of(prefix, 0, prefix.length)).isEqualTo("klat.send");
  }

  @Test
  void aKeyThatDiffersInAnyByteIsNotTakenForAKnownOne() {
    // The hash reads four bytes of a key: every other byte must still be compared.
    for (AttributeDef def : SpanAttributes.all()) {
      byte[] key = def.name().getBytes(StandardCharsets.UTF_8);
      assertThat(KnownKeys.find(key, 0, key.length)).isNotNegative();
      for (int i = 0; i < key.length; i++) {
        byte[] changed = key.clone();
        changed[i] = (byte) (changed[i] == 'x' ? 'y' : 'x');
        String expected = new String(changed, StandardCharsets.UTF_8);
        String found = KnownKeys.of(changed, 0, changed.length);
        assertThat(found).isEqualTo(expected);
      }
    }
    assertThat(KnownKeys.find(new byte[0], 0, 0)).isNegative();
  }
}
