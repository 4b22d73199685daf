package dev.klat.agent.export;

import dev.klat.model.AttributeDef;
import java.util.Arrays;

/**
 * The span of one sampled record, filled in by the instrumentation and then handed to {@link
 * Telemetry#offer}; after that the exporter owns it and the caller must not touch it again.
 *
 * <p>Not thread-safe: one thread fills it in (or several, with a happens-before between them, as
 * the producer's send and callback threads have). Attributes live in parallel arrays, so putting a
 * {@code long}, {@code boolean} or {@code double} never boxes. At most {@value #MAX_ATTRIBUTES}
 * attributes are kept; further ones, and values whose type differs from {@link
 * AttributeDef#type()}, are dropped and counted, and the count is exported as the span's {@code
 * dropped_attributes_count}. No method throws.
 */
public final class SpanRecord {

  /** OTLP {@code SPAN_KIND_PRODUCER}. */
  public static final int KIND_PRODUCER = 4;

  /** OTLP {@code SPAN_KIND_CONSUMER}. */
  public static final int KIND_CONSUMER = 5;

  /** The maximum number of span links a span keeps, {@value}; further ones are counted. */
  public static final int MAX_LINKS = 32;

  /** The maximum number of attributes a span keeps, {@value}. */
  public static final int MAX_ATTRIBUTES = 40;

  static final byte TYPE_STRING = 1;
  static final byte TYPE_LONG = 2;
  static final byte TYPE_BOOLEAN = 3;
  static final byte TYPE_DOUBLE = 4;

  // By AttributeDef.Type ordinal.
  private static final byte[] WIRE_TYPES = wireTypes();

  private long traceIdHigh;
  private long traceIdLow;
  private long spanId;
  private long parentSpanId;
  private String name = "";
  private int kind;
  private long startEpochNanos;
  private long endEpochNanos;
  private boolean statusError;
  private String statusMessage = "";

  // Parallel arrays: longs hold longs, booleans as 0/1, doubles as their raw bits and strings their
  // index in strings, which holds only the string values (a third of a producer span's). Sized by
  // the caller's expected counts, grown (rarely) up to MAX_ATTRIBUTES.
  private AttributeDef[] attributeKeys;
  private long[] attributeLongs;
  private String[] strings;
  private int stringCount;
  private int attributeCount;
  private int droppedAttributeCount;
  // The keys put so far, by AttributeDef.id() (ids below 128): a key put for the first time, the
  // usual case, is appended without scanning the keys before it (a span of 35 attributes scanned
  // about 600 of them).
  private long keysBelow64;
  private long keysBelow128;

  // OTLP span links, rare (an output linked to several consumed records): null until the first.
  // Per link its trace id (two longs) and span id, and its attributes in a span of their own.
  private long[] linkIds;
  private SpanRecord[] linkAttributes;
  private int linkCount;
  private int droppedLinkCount;

  /**
   * Creates an empty span with room for {@value #MAX_ATTRIBUTES} attributes: ids 0 (invalid until
   * set), no name, kind unspecified.
   */
  public SpanRecord() {
    this(MAX_ATTRIBUTES, MAX_ATTRIBUTES);
  }

  /**
   * Creates an empty span whose attribute arrays are sized for {@code expectedAttributes}: they
   * grow when more are put, up to {@value #MAX_ATTRIBUTES}. Every sampled record allocates its
   * span, and arrays of {@value #MAX_ATTRIBUTES} were about a quarter of what it allocated while a
   * producer span holds at most 28 attributes.
   *
   * @param expectedAttributes the most attributes the caller puts; at least 1 is used
   * @param expectedStrings how many of them are strings; at least 1 is used
   */
  public SpanRecord(int expectedAttributes, int expectedStrings) {
    int capacity = Math.max(1, Math.min(expectedAttributes, MAX_ATTRIBUTES));
    attributeKeys = new AttributeDef[capacity];
    attributeLongs = new long[capacity];
    strings = new String[Math.max(1, Math.min(expectedStrings, capacity))];
  }

  /**
   * Sets the trace id, 128 bits as two longs.
   *
   * @param traceIdHigh the first 8 bytes, big-endian
   * @param traceIdLow the last 8 bytes, big-endian
   * @return this span
   */
  public SpanRecord setTraceId(long traceIdHigh, long traceIdLow) {
    this.traceIdHigh = traceIdHigh;
    this.traceIdLow = traceIdLow;
    return this;
  }

  /**
   * Sets the span id; a span whose trace id or span id is 0 is invalid and not exported.
   *
   * @param spanId the span id, non-zero
   * @return this span
   */
  public SpanRecord setSpanId(long spanId) {
    this.spanId = spanId;
    return this;
  }

  /**
   * Sets the parent span id.
   *
   * @param parentSpanId the parent's span id, 0 for a root span
   * @return this span
   */
  public SpanRecord setParentSpanId(long parentSpanId) {
    this.parentSpanId = parentSpanId;
    return this;
  }

  /**
   * Sets the span name.
   *
   * @param name the name; null is taken as the empty string
   * @return this span
   */
  public SpanRecord setName(String name) {
    this.name = name == null ? "" : name;
    return this;
  }

  /**
   * Sets the span kind.
   *
   * @param kind an OTLP span kind number, such as {@link #KIND_PRODUCER} or {@link #KIND_CONSUMER}
   * @return this span
   */
  public SpanRecord setKind(int kind) {
    this.kind = kind;
    return this;
  }

  /**
   * Sets the start time.
   *
   * @param startEpochNanos wall-clock nanoseconds since the Unix epoch
   * @return this span
   */
  public SpanRecord setStartEpochNanos(long startEpochNanos) {
    this.startEpochNanos = startEpochNanos;
    return this;
  }

  /**
   * Sets the end time.
   *
   * @param endEpochNanos wall-clock nanoseconds since the Unix epoch
   * @return this span
   */
  public SpanRecord setEndEpochNanos(long endEpochNanos) {
    this.endEpochNanos = endEpochNanos;
    return this;
  }

  /**
   * Marks the span as failed: OTLP status code {@code ERROR}.
   *
   * @param message a description of the error; null is taken as the empty string
   * @return this span
   */
  public SpanRecord setError(String message) {
    this.statusError = true;
    this.statusMessage = message == null ? "" : message;
    return this;
  }

  /**
   * Puts a {@link AttributeDef.Type#LONG} attribute, replacing an earlier value of the same key.
   *
   * @param key the attribute; a null key or one of another type is dropped and counted
   * @param value the value
   * @return this span
   */
  public SpanRecord put(AttributeDef key, long value) {
    return putRaw(key, AttributeDef.Type.LONG, value, null);
  }

  /**
   * Puts a {@link AttributeDef.Type#STRING} attribute, replacing an earlier value of the same key.
   *
   * @param key the attribute; a null key or one of another type is dropped and counted
   * @param value the value; null is dropped and counted
   * @return this span
   */
  public SpanRecord put(AttributeDef key, String value) {
    if (value == null) {
      droppedAttributeCount++;
      return this;
    }
    return putRaw(key, AttributeDef.Type.STRING, 0, value);
  }

  /**
   * Puts a {@link AttributeDef.Type#BOOLEAN} attribute, replacing an earlier value of the same key.
   *
   * @param key the attribute; a null key or one of another type is dropped and counted
   * @param value the value
   * @return this span
   */
  public SpanRecord put(AttributeDef key, boolean value) {
    return putRaw(key, AttributeDef.Type.BOOLEAN, value ? 1 : 0, null);
  }

  /**
   * Puts a {@link AttributeDef.Type#DOUBLE} attribute, replacing an earlier value of the same key.
   *
   * @param key the attribute; a null key or one of another type is dropped and counted
   * @param value the value
   * @return this span
   */
  public SpanRecord put(AttributeDef key, double value) {
    return putRaw(key, AttributeDef.Type.DOUBLE, Double.doubleToRawLongBits(value), null);
  }

  private static byte[] wireTypes() {
    byte[] types = new byte[AttributeDef.Type.values().length];
    types[AttributeDef.Type.STRING.ordinal()] = TYPE_STRING;
    types[AttributeDef.Type.LONG.ordinal()] = TYPE_LONG;
    types[AttributeDef.Type.BOOLEAN.ordinal()] = TYPE_BOOLEAN;
    types[AttributeDef.Type.DOUBLE.ordinal()] = TYPE_DOUBLE;
    return types;
  }

  private SpanRecord putRaw(
      AttributeDef key, AttributeDef.Type expected, long bits, String string) {
    // The collector reads each key with the type model/ declares; a mismatched value is a bug in
    // the instrumentation that must not reach the wire.
    if (key == null || key.type() != expected) {
      droppedAttributeCount++;
      return this;
    }
    int index = mayHave(key.id()) ? indexOf(key) : -1;
    boolean added = index < 0;
    if (added) {
      if (attributeCount == attributeKeys.length) {
        if (attributeCount == MAX_ATTRIBUTES) {
          droppedAttributeCount++;
          return this;
        }
        grow();
      }
      index = attributeCount++;
      attributeKeys[index] = key;
      noteKey(key.id());
    }
    if (string == null) {
      attributeLongs[index] = bits;
    } else if (!added) {
      // A string key put again keeps its slot.
      strings[(int) attributeLongs[index]] = string;
    } else {
      if (stringCount == strings.length) {
        strings = Arrays.copyOf(strings, Math.min(MAX_ATTRIBUTES, strings.length * 2));
      }
      attributeLongs[index] = stringCount;
      strings[stringCount++] = string;
    }
    return this;
  }

  private void grow() {
    int capacity = Math.min(MAX_ATTRIBUTES, attributeKeys.length * 2);
    attributeKeys = Arrays.copyOf(attributeKeys, capacity);
    attributeLongs = Arrays.copyOf(attributeLongs, capacity);
  }

  // False only when the key was never put; ids beyond the bit sets are always looked for.
  private boolean mayHave(int id) {
    if (id < 64) {
      return (keysBelow64 & (1L << id)) != 0;
    }
    return id >= 128 || (keysBelow128 & (1L << (id - 64))) != 0;
  }

  private void noteKey(int id) {
    if (id < 64) {
      keysBelow64 |= 1L << id;
    } else if (id < 128) {
      keysBelow128 |= 1L << (id - 64);
    }
  }

  private int indexOf(AttributeDef key) {
    for (int i = 0; i < attributeCount; i++) {
      if (attributeKeys[i] == key) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Returns the first 8 bytes of the trace id.
   *
   * @return the high half, big-endian
   */
  public long traceIdHigh() {
    return traceIdHigh;
  }

  /**
   * Returns the last 8 bytes of the trace id.
   *
   * @return the low half, big-endian
   */
  public long traceIdLow() {
    return traceIdLow;
  }

  /**
   * Returns the span id.
   *
   * @return the span id, 0 if not set
   */
  public long spanId() {
    return spanId;
  }

  /**
   * Returns the parent span id.
   *
   * @return the parent's span id, 0 for a root span
   */
  public long parentSpanId() {
    return parentSpanId;
  }

  /**
   * Returns the span name.
   *
   * @return the name, never null
   */
  public String name() {
    return name;
  }

  /**
   * Returns the span kind.
   *
   * @return an OTLP span kind number, 0 if not set
   */
  public int kind() {
    return kind;
  }

  /**
   * Returns the start time.
   *
   * @return wall-clock nanoseconds since the Unix epoch
   */
  public long startEpochNanos() {
    return startEpochNanos;
  }

  /**
   * Returns the end time.
   *
   * @return wall-clock nanoseconds since the Unix epoch
   */
  public long endEpochNanos() {
    return endEpochNanos;
  }

  /**
   * Returns whether the span failed.
   *
   * @return true after {@link #setError}
   */
  public boolean statusError() {
    return statusError;
  }

  /**
   * Returns the error description.
   *
   * @return the message given to {@link #setError}, {@code ""} if none
   */
  public String statusMessage() {
    return statusMessage;
  }

  /**
   * Returns how many attributes the span holds.
   *
   * @return at most {@value #MAX_ATTRIBUTES}
   */
  public int attributeCount() {
    return attributeCount;
  }

  /**
   * Returns how many attributes were dropped: beyond {@value #MAX_ATTRIBUTES}, null, or of the
   * wrong type.
   *
   * @return the number of dropped attributes
   */
  public int droppedAttributeCount() {
    return droppedAttributeCount;
  }

  /**
   * Adds an OTLP span link to the span {@code spanId} of trace {@code traceIdHigh, traceIdLow},
   * with the attributes put on {@code attributes} (a span used only for them; null for none).
   * Beyond {@value #MAX_LINKS} links, counted as dropped.
   */
  public SpanRecord addLink(long traceIdHigh, long traceIdLow, long spanId, SpanRecord attributes) {
    if (linkCount == MAX_LINKS) {
      droppedLinkCount++;
      return this;
    }
    if (linkIds == null) {
      linkIds = new long[3 * 4];
      linkAttributes = new SpanRecord[4];
    } else if (linkCount == linkAttributes.length) {
      linkIds = Arrays.copyOf(linkIds, 6 * linkCount);
      linkAttributes = Arrays.copyOf(linkAttributes, 2 * linkCount);
    }
    linkIds[3 * linkCount] = traceIdHigh;
    linkIds[3 * linkCount + 1] = traceIdLow;
    linkIds[3 * linkCount + 2] = spanId;
    linkAttributes[linkCount++] = attributes;
    return this;
  }

  /** Returns how many span links the span has, at most {@value #MAX_LINKS}. */
  public int linkCount() {
    return linkCount;
  }

  /** Returns how many span links were dropped beyond {@value #MAX_LINKS}. */
  public int droppedLinkCount() {
    return droppedLinkCount;
  }

  /** Returns the high half of link {@code index}'s trace id. */
  public long linkTraceIdHigh(int index) {
    return linkIds[3 * index];
  }

  /** Returns the low half of link {@code index}'s trace id. */
  public long linkTraceIdLow(int index) {
    return linkIds[3 * index + 1];
  }

  /** Returns link {@code index}'s span id. */
  public long linkSpanId(int index) {
    return linkIds[3 * index + 2];
  }

  /** Returns the span holding link {@code index}'s attributes, or null. */
  public SpanRecord linkAttributes(int index) {
    return linkAttributes[index];
  }

  /** Returns true if the ids make a valid OTLP span: trace id and span id not zero. */
  boolean hasValidIds() {
    return (traceIdHigh != 0 || traceIdLow != 0) && spanId != 0;
  }

  AttributeDef attributeKey(int index) {
    return attributeKeys[index];
  }

  byte attributeType(int index) {
    // The key's own type: a value of another type never got in (putRaw).
    return WIRE_TYPES[attributeKeys[index].type().ordinal()];
  }

  long attributeBits(int index) {
    return attributeLongs[index];
  }

  String attributeString(int index) {
    return attributeKeys[index].type() == AttributeDef.Type.STRING
        ? strings[(int) attributeLongs[index]]
        : null;
  }
}
