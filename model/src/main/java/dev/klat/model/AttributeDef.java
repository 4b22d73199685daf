package dev.klat.model;

/**
 * The definition of one span attribute: its key, value type, unit and meaning. The constants live
 * in {@link SpanAttributes}. Immutable.
 */
public final class AttributeDef {

  /** The value type of an attribute, matching OpenTelemetry's attribute types. */
  public enum Type {
    /** A string value. */
    STRING,
    /** A 64-bit signed integer value. */
    LONG,
    /** A 64-bit floating point value. */
    DOUBLE,
    /** A boolean value. */
    BOOLEAN
  }

  private static final java.util.concurrent.atomic.AtomicInteger NEXT_ID =
      new java.util.concurrent.atomic.AtomicInteger();

  private final int id = NEXT_ID.getAndIncrement();
  private final String name;
  private final Type type;
  private final String unit;
  private final String description;

  AttributeDef(String name, Type type, String unit, String description) {
    this.name = name;
    this.type = type;
    this.unit = unit;
    this.description = description;
  }

  /**
   * Returns a small number unique to this definition in the JVM, counted from 0 in the order the
   * definitions are made: an index for lookups by array or bit set instead of by name.
   *
   * @return the id, at least 0
   */
  public int id() {
    return id;
  }

  /**
   * Returns the attribute key.
   *
   * @return a dotted key such as {@code "klat.send.time_unix_nano"}
   */
  public String name() {
    return name;
  }

  /**
   * Returns the value type.
   *
   * @return the type, never null
   */
  public Type type() {
    return type;
  }

  /**
   * Returns the unit of the value, in the UCUM notation OpenTelemetry uses.
   *
   * @return for example {@code "ns"}, {@code "ms"} or {@code "By"}; {@code ""} when the value has
   *     no unit
   */
  public String unit() {
    return unit;
  }

  /**
   * Returns what the attribute means.
   *
   * @return a one-sentence description
   */
  public String description() {
    return description;
  }

  /**
   * Returns the attribute key, so that a definition can be printed where a key is expected.
   *
   * @return {@link #name()}
   */
  @Override
  public String toString() {
    return name;
  }
}
