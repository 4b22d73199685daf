package dev.klat.agent.weave;

import java.lang.reflect.Field;

/**
 * Reads a private field of a kafka-clients object, looking up through its superclasses (an
 * application may subclass {@code KafkaProducer} or {@code KafkaConsumer}). For state set up once
 * per client, never on a per-record path.
 */
public final class PrivateFields {

  private PrivateFields() {}

  /** The field's value, or null when the object has no such field or it cannot be read. */
  public static Object read(Object target, String name) {
    for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
      } catch (NoSuchFieldException e) {
        // Declared further up, if at all.
      } catch (Exception | LinkageError e) {
        return null;
      }
    }
    return null;
  }
}
