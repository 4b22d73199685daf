package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("jdk-independent")
class OtelMessagingAttributesTest {

  @Test
  void everyNameIsListedOnceDescribedAndNotOneOfKlatsOwn() throws Exception {
    List<AttributeDef> constants = new ArrayList<>();
    for (Field f : OtelMessagingAttributes.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == AttributeDef.class) {
        constants.add((AttributeDef) f.get(null));
      }
    }
    assertThat(OtelMessagingAttributes.all()).containsExactlyInAnyOrderElementsOf(constants);
    List<String> names = new ArrayList<>();
    for (AttributeDef def : OtelMessagingAttributes.all()) {
      names.add(def.name());
      assertThat(def.name()).matches("[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+");
      assertThat(def.description()).as(def.name()).isNotBlank().endsWith(".");
    }
    assertThat(names).doesNotHaveDuplicates();
    for (AttributeDef klat : SpanAttributes.all()) {
      assertThat(names).doesNotContain(klat.name());
    }
  }

  @Test
  void theOlderNamesArePinned() {
    assertThat(names())
        .containsExactly(
            "messaging.destination",
            "messaging.source.name",
            "messaging.kafka.partition",
            "messaging.kafka.destination.partition",
            "messaging.kafka.source.partition",
            "messaging.kafka.message.offset",
            "kafka.offset",
            "messaging.message.id",
            "messaging.message_id",
            "messaging.kafka.consumer.group",
            "messaging.kafka.consumer_group",
            "messaging.client_id",
            "messaging.kafka.client_id",
            "messaging.operation",
            "messaging.operation.type",
            "messaging.operation.name",
            "messaging.batch.message_count",
            "error.type");
  }

  private static List<String> names() {
    List<String> out = new ArrayList<>();
    OtelMessagingAttributes.all().forEach(d -> out.add(d.name()));
    return out;
  }
}
