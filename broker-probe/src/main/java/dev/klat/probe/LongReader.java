package dev.klat.probe;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;

/**
 * Reads one {@code long} from a broker object whose class the probe cannot name at compile time
 * (Kafka moved {@code UnifiedLog} from Scala to Java in 4.1, and {@code LogAppendInfo.firstOffset}
 * returned an {@code Optional<LogOffsetMetadata>} until 3.6). The method handle is found once per
 * class met and kept, so a read costs a class comparison and one handle call; a class without a
 * usable method gives {@code Long.MIN_VALUE}, which callers treat as "no event".
 */
final class LongReader {

  private final String methodName;
  private volatile Resolved resolved;

  LongReader(String methodName) {
    this.methodName = methodName;
  }

  long read(Object target) throws Throwable {
    Resolved r = resolved;
    Class<?> type = target.getClass();
    if (r == null || r.type != type) {
      r = resolve(type);
      resolved = r;
    }
    return r.handle == null ? Long.MIN_VALUE : (long) r.handle.invokeExact(target);
  }

  private Resolved resolve(Class<?> type) {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    try {
      MethodHandle direct = lookup.findVirtual(type, methodName, MethodType.methodType(long.class));
      return new Resolved(type, direct.asType(MethodType.methodType(long.class, Object.class)));
    } catch (ReflectiveOperationException | RuntimeException notLong) {
      // Kafka 3.6: firstOffset() is an Optional of a LogOffsetMetadata (its messageOffset field).
    }
    try {
      MethodHandle optional =
          lookup.findVirtual(type, methodName, MethodType.methodType(Optional.class));
      MethodHandle unwrap =
          MethodHandles.lookup()
              .findStatic(
                  LongReader.class,
                  "messageOffset",
                  MethodType.methodType(long.class, Optional.class));
      MethodHandle composed = MethodHandles.filterReturnValue(optional, unwrap);
      return new Resolved(type, composed.asType(MethodType.methodType(long.class, Object.class)));
    } catch (ReflectiveOperationException | RuntimeException neither) {
      return new Resolved(type, null);
    }
  }

  // Called through the handle above, once per append on Kafka 3.6 only.
  @SuppressWarnings("unused")
  private static long messageOffset(Optional<?> metadata) throws ReflectiveOperationException {
    if (!metadata.isPresent()) {
      return Long.MIN_VALUE;
    }
    Object value = metadata.get();
    return value.getClass().getField("messageOffset").getLong(value);
  }

  private static final class Resolved {
    final Class<?> type;
    final MethodHandle handle;

    Resolved(Class<?> type, MethodHandle handle) {
      this.type = type;
      this.handle = handle;
    }
  }
}
