package dev.klat.agent.export;

import dev.klat.model.AttributeDef;
import java.lang.reflect.Constructor;

/**
 * Attribute definitions model/ does not have: more keys than its 31, and DOUBLE and BOOLEAN types,
 * which it does not use yet. AttributeDef's constructor is package-private to model/, hence
 * reflection; test-only.
 */
final class TestAttributes {

  private TestAttributes() {}

  static AttributeDef[] longAttributes(int n) {
    AttributeDef[] defs = new AttributeDef[n];
    for (int i = 0; i < n; i++) {
      defs[i] = of("test.attr." + i, AttributeDef.Type.LONG);
    }
    return defs;
  }

  static AttributeDef of(String name, AttributeDef.Type type) {
    try {
      Constructor<AttributeDef> c =
          AttributeDef.class.getDeclaredConstructor(
              String.class, AttributeDef.Type.class, String.class, String.class);
      c.setAccessible(true);
      return c.newInstance(name, type, "", "test");
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
