package dev.klat.agent.producer;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.common.TopicPartition;

/**
 * What a tail span needs of a {@code ProducerBatch} that its API does not give: the future of a
 * record by its index (the batch's {@code thunks} list and each thunk's {@code future}) and the
 * batch's {@code topicPartition}, package-private fields in kafka-clients 2.8 to 4.4 (javap), read
 * by reflection. Only for tail records, a few a second per producer: each field is looked up once
 * per class and cached.
 */
final class BatchRecordFutures {

  private static final int THUNKS = 0;
  private static final int FUTURE = 1;
  private static final int TOPIC_PARTITION = 2;
  private static final String[] NAMES = {"thunks", "future", "topicPartition"};
  // Racy by design: a thread that misses another's write looks the field up again.
  private static final CachedField[] CACHE = new CachedField[NAMES.length];

  private BatchRecordFutures() {}

  /** The future of the record at {@code index}, or null when it cannot be read. */
  static Future<?> futureAt(Object batch, int index) {
    try {
      Object list = read(batch, THUNKS);
      if (!(list instanceof List) || index < 0 || index >= ((List<?>) list).size()) {
        return null;
      }
      Object thunk = ((List<?>) list).get(index);
      Object value = thunk == null ? null : read(thunk, FUTURE);
      return value instanceof Future ? (Future<?>) value : null;
    } catch (Exception | LinkageError e) {
      return null;
    }
  }

  /** The batch's partition, or -1 when it cannot be read. */
  static int partitionOf(Object batch) {
    try {
      Object value = read(batch, TOPIC_PARTITION);
      return value instanceof TopicPartition ? ((TopicPartition) value).partition() : -1;
    } catch (Exception | LinkageError e) {
      return -1;
    }
  }

  private static Object read(Object target, int which) throws Exception {
    CachedField cached = CACHE[which];
    Class<?> type = target.getClass();
    if (cached == null || cached.owner != type) {
      Field field = find(type, NAMES[which]);
      if (field == null) {
        return null;
      }
      cached = new CachedField(type, field);
      CACHE[which] = cached;
    }
    return cached.field.get(target);
  }

  private static Field find(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        Field field = c.getDeclaredField(name);
        field.setAccessible(true);
        return field;
      } catch (NoSuchFieldException e) {
        // Declared further up, if at all.
      } catch (RuntimeException e) {
        return null;
      }
    }
    return null;
  }

  /** A field and the class it was found for (kafka-clients may be loaded by several loaders). */
  private static final class CachedField {
    final Class<?> owner;
    final Field field;

    CachedField(Class<?> owner, Field field) {
      this.owner = owner;
      this.field = field;
    }
  }
}
