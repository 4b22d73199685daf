package dev.klat.agent.producer;

import java.lang.reflect.Field;

/**
 * Reads a private field of the {@code KafkaProducer} behind {@code send()} ({@code clientId},
 * {@code producerConfig}, {@code apiVersions}: the same in 2.8 to 4.4), once per producer when its
 * state is created. The woven {@code send()} passes only itself, the record and the callback: every
 * byte the advice adds counts, since the JIT inlines {@code send()} into the application's loop
 * only while it stays within 35 bytes of bytecode (measured: passing the three fields made it 45
 * bytes, and the application's loop called it instead).
 */
final class ProducerFields {

  private ProducerFields() {}

  /** The field's value, or null when the producer has no such field or it cannot be read. */
  static Object read(Object producer, String name) {
    for (Class<?> type = producer.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(producer);
      } catch (NoSuchFieldException e) {
        // A subclass of KafkaProducer: look further up.
      } catch (RuntimeException | IllegalAccessException e) {
        return null;
      }
    }
    return null;
  }
}
