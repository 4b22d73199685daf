package dev.klat.agent.export;

import dev.klat.model.AttributeDef;

/** Reads a span's attributes from tests outside this package; test-only. */
public final class TestSpans {

  private TestSpans() {}

  /** The long value of {@code key} on {@code span}, or null when the span does not carry it. */
  public static Long longValue(SpanRecord span, AttributeDef key) {
    for (int i = 0; i < span.attributeCount(); i++) {
      if (span.attributeKey(i) == key) {
        return span.attributeBits(i);
      }
    }
    return null;
  }

  /** The string value of {@code key} on {@code span}, or null when the span does not carry it. */
  public static String stringValue(SpanRecord span, AttributeDef key) {
    for (int i = 0; i < span.attributeCount(); i++) {
      if (span.attributeKey(i) == key) {
        return span.attributeString(i);
      }
    }
    return null;
  }
}
