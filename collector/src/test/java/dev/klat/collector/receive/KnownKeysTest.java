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
}
