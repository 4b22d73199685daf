package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.AttributeDef;
import dev.klat.model.SpanAttributes;
import org.junit.jupiter.api.Test;

class SpanRecordTest {

  @Test
  void storesAttributesOfEachTypeWithoutBoxing() {
    SpanRecord span = new SpanRecord();
    span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, 42L);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, "orders");

    assertThat(span.attributeCount()).isEqualTo(2);
    assertThat(span.attributeKey(0)).isSameAs(SpanAttributes.MESSAGING_KAFKA_OFFSET);
    assertThat(span.attributeType(0)).isEqualTo(SpanRecord.TYPE_LONG);
    assertThat(span.attributeBits(0)).isEqualTo(42L);
    assertThat(span.attributeType(1)).isEqualTo(SpanRecord.TYPE_STRING);
    assertThat(span.attributeString(1)).isEqualTo("orders");
    assertThat(span.droppedAttributeCount()).isZero();
  }

  @Test
  void aSecondValueForAKeyReplacesTheFirst() {
    SpanRecord span = new SpanRecord();
    span.put(SpanAttributes.PRODUCER_ATTEMPTS, 1L);
    span.put(SpanAttributes.PRODUCER_ATTEMPTS, 3L);

    assertThat(span.attributeCount()).isEqualTo(1);
    assertThat(span.attributeBits(0)).isEqualTo(3L);
  }

  @Test
  void aKeyPutAgainIsReplacedWhateverItsId() {
    // Definitions of every id range: below 64, 64 to 127 and from 128 on (looked for by scanning).
    AttributeDef[] made = TestAttributes.longAttributes(200);
    java.util.List<AttributeDef> keys = new java.util.ArrayList<>();
    for (int[] range : new int[][] {{0, 64}, {64, 128}, {128, Integer.MAX_VALUE}}) {
      java.util.stream.Stream.concat(SpanAttributes.all().stream(), java.util.Arrays.stream(made))
          .filter(d -> d.type() == AttributeDef.Type.LONG)
          .filter(d -> d.id() >= range[0] && d.id() < range[1])
          .limit(6)
          .forEach(keys::add);
    }
    assertThat(keys).hasSize(18);
    SpanRecord span = new SpanRecord();
    for (int i = 0; i < keys.size(); i++) {
      span.put(keys.get(i), i);
    }
    for (int i = 0; i < keys.size(); i++) {
      span.put(keys.get(i), 100L + i);
    }
    assertThat(span.attributeCount()).isEqualTo(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      assertThat(span.attributeKey(i)).isSameAs(keys.get(i));
      assertThat(span.attributeBits(i)).isEqualTo(100L + i);
    }
  }

  @Test
  void valuesOfAnotherTypeThanTheModelDeclaresAreDroppedAndCounted() {
    SpanRecord span = new SpanRecord();
    span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, "42");
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, 1L);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, true);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, 1.5);
    span.put(null, 1L);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, (String) null);

    assertThat(span.attributeCount()).isZero();
    assertThat(span.droppedAttributeCount()).isEqualTo(6);
  }

  // Made once, when first needed: every definition takes an id for good, and
  // aKeyPutAgainIsReplacedWhateverItsId needs some below 128 left.
  private static AttributeDef[] many;

  private static synchronized AttributeDef[] many() {
    if (many == null) {
      many = TestAttributes.longAttributes(SpanRecord.MAX_ATTRIBUTES + 5);
    }
    return many;
  }

  @Test
  void keepsAtMostFortyAttributesAndCountsTheRest() {
    SpanRecord span = new SpanRecord();
    AttributeDef[] many = many();
    for (AttributeDef def : many) {
      span.put(def, 1L);
    }
    assertThat(span.attributeCount()).isEqualTo(SpanRecord.MAX_ATTRIBUTES);
    assertThat(span.droppedAttributeCount()).isEqualTo(5);
  }

  @Test
  void aSpanSizedForFewAttributesGrowsToTheSameFortyKeepingEveryValue() {
    SpanRecord span = new SpanRecord(3, 1);
    AttributeDef[] many = many();
    for (int i = 0; i < many.length; i++) {
      span.put(many[i], (long) i);
    }
    assertThat(span.attributeCount()).isEqualTo(SpanRecord.MAX_ATTRIBUTES);
    assertThat(span.droppedAttributeCount()).isEqualTo(5);
    for (int i = 0; i < SpanRecord.MAX_ATTRIBUTES; i++) {
      assertThat(span.attributeKey(i)).isSameAs(many[i]);
      assertThat(span.attributeBits(i)).isEqualTo(i);
    }
    span.put(many[0], 99L);
    assertThat(span.attributeBits(0)).isEqualTo(99L);
    assertThat(new SpanRecord(0, 0).put(many[0], 1L).attributeCount()).isEqualTo(1);
  }

  @Test
  void stringsBeyondTheExpectedCountGrowTheirArrayAndAStringPutAgainKeepsItsSlot() {
    // The model's own definitions: aKeyPutAgainIsReplacedWhateverItsId needs ids below 128 left.
    java.util.List<AttributeDef> strings = new java.util.ArrayList<>();
    for (AttributeDef def : SpanAttributes.all()) {
      if (def.type() == AttributeDef.Type.STRING && strings.size() < 6) {
        strings.add(def);
      }
    }
    assertThat(strings).hasSize(6);
    SpanRecord span = new SpanRecord(2, 1);
    span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, 5L);
    for (int i = 0; i < strings.size(); i++) {
      span.put(strings.get(i), "v" + i);
    }
    span.put(strings.get(2), "again");

    assertThat(span.attributeCount()).isEqualTo(7);
    assertThat(span.attributeString(0)).isNull();
    assertThat(span.attributeBits(0)).isEqualTo(5L);
    for (int i = 0; i < strings.size(); i++) {
      assertThat(span.attributeKey(i + 1)).isSameAs(strings.get(i));
      assertThat(span.attributeString(i + 1)).isEqualTo(i == 2 ? "again" : "v" + i);
    }
  }

  @Test
  void aSpanIsValidOnlyWithNonZeroTraceAndSpanIds() {
    assertThat(new SpanRecord().hasValidIds()).isFalse();
    assertThat(new SpanRecord().setTraceId(0, 1).setSpanId(0).hasValidIds()).isFalse();
    assertThat(new SpanRecord().setTraceId(0, 0).setSpanId(1).hasValidIds()).isFalse();
    assertThat(new SpanRecord().setTraceId(1, 0).setSpanId(1).hasValidIds()).isTrue();
  }

  @Test
  void nullNameAndErrorMessageBecomeEmpty() {
    SpanRecord span = new SpanRecord().setName(null).setError(null);
    assertThat(span.name()).isEmpty();
    assertThat(span.statusError()).isTrue();
    assertThat(span.statusMessage()).isEmpty();
  }
}
