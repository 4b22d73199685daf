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
 * usable method gives {@code Long.MIN_VALUE}, which callers treat as "no event". A method returning
 * an {@code int} ({@code Replica.brokerId()}, a Scala class until 4.1) reads widened.
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
      // An int, or (Kafka 3.6) an Optional below.
    }
    try {
      MethodHandle direct = lookup.findVirtual(type, methodName, MethodType.methodType(int.class));
      return new Resolved(type, direct.asType(MethodType.methodType(long.class, Object.class)));
    } catch (ReflectiveOperationException | RuntimeException notInt) {
      // Kafka 3.6: firstOffset() is an Optional of a LogOffsetMetadata (its messageOffset field).
    }
    try {
      MethodHandle optional =
          lookup.findVirtual(type, methodName, MethodType.methodType(Optional.class));
      Class<?> metadata =
          Class.forName(
              "org.apache.kafka.storage.internals.log.LogOffsetMetadata",
              false,
              type.getClassLoader());
      MethodHandle messageOffset =
          lookup
              .findGetter(metadata, "messageOffset", long.class)
              .asType(MethodType.methodType(long.class, Object.class));
      MethodHandle present =
          lookup.findVirtual(Optional.class, "isPresent", MethodType.methodType(boolean.class));
      MethodHandle offsetOfPresent =
          MethodHandles.filterReturnValue(
              lookup.findVirtual(Optional.class, "get", MethodType.methodType(Object.class)),
              messageOffset);
      // An empty Optional (an append that wrote nothing) reads as MIN_VALUE: no event.
      MethodHandle offsetOrNone =
          MethodHandles.guardWithTest(
              present,
              offsetOfPresent,
              MethodHandles.dropArguments(
                  MethodHandles.constant(long.class, Long.MIN_VALUE), 0, Optional.class));
      MethodHandle composed = MethodHandles.filterReturnValue(optional, offsetOrNone);
      return new Resolved(type, composed.asType(MethodType.methodType(long.class, Object.class)));
    } catch (ReflectiveOperationException | RuntimeException neither) {
      return new Resolved(type, null);
    }
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
