package dev.klat.collector.receive;

import dev.klat.model.AttributeDef;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.OtelMessagingAttributes;
import dev.klat.model.SpanAttributes;
import java.util.HashMap;
import java.util.Map;

/**
 * The attributes of one span that {@link SpanMapper} reads, each in a typed slot, so that decoding
 * a span allocates no map, no boxes and no key strings; every other attribute is dropped. A slot
 * behaves as a map entry did: the last value given for a key wins, and a value of a type the
 * collector does not read (array, map, bytes) leaves the slot as it was. Not thread-safe.
 */
final class KlatAttributes {
  static final int TOPIC = 0;
  static final int PARTITION = 1;
  static final int OFFSET = 2;
  static final int GROUP = 3;
  static final int CLIENT_ID = 4;
  static final int SEND_TIME = 5;
  static final int DRAIN_TIME = 6;
  static final int ACK_TIME = 7;
  static final int POLL_TIME = 8;
  static final int FETCH_REQUEST_TIME = 9;
  static final int FETCH_RESPONSE_TIME = 10;
  static final int ERROR_TYPE = 11;
  static final int TIMESTAMP_TYPE = 12;
  static final int TIMESTAMP_MS = 13;
  static final int LEADER_NODE_ID = 14;
  static final int ACKS = 15;
  static final int INSTANCE_ID = 16;
  static final int FETCH_MIN_BYTES = 17;
  static final int READ_PROMPTLY = 18;
  static final int UNCOMMITTED_TIME = 19;
  static final int LINGER_MS = 20;
  static final int BATCH_SIZE = 21;
  static final int BUFFER_MEMORY = 22;
  static final int MAX_IN_FLIGHT = 23;
  static final int BATCH_RECORDS = 24;
  static final int BATCH_BYTES = 25;
  static final int ATTEMPTS = 26;
  static final int FETCH_MAX_WAIT_MS = 27;
  static final int MAX_POLL_RECORDS = 28;
  static final int APPEND_WAIT = 29;
  static final int POLL_GAP = 30;
  static final int PREVIOUS_POLL_RECORDS = 31;
  static final int REQUEST_IN_FLIGHT = 32;
  static final int REQUEST_BATCHES = 33;
  static final int ASSIGNED_PARTITIONS = 34;
  static final int METADATA_WAIT = 35;
  static final int RETRY_ERROR = 36;
  static final int CAPTURE = 37;
  static final int TAIL_THRESHOLD = 38;
  // Section 9 of the latency model: transactions and isolation.
  static final int TRANSACTIONAL = 39;
  static final int TXN_COMMIT_TIME = 40;
  static final int ISOLATION_LEVEL = 41;
  // The first linked input of a pipeline's output record (section 9 of the latency model); also
  // the slots of each OTLP span link's attributes.
  static final int LINK_TOPIC = 42;
  static final int LINK_PARTITION = 43;
  static final int LINK_OFFSET = 44;
  static final int LINK_GROUP = 45;
  static final int LINK_COUNT = 46;
  // Section 10 of the latency model: the older and other names OpenTelemetry's Kafka
  // instrumentations write (OtelMessagingAttributes), read by OtelSpanReader.
  static final int MESSAGING_SYSTEM = 47;
  static final int OTEL_DESTINATION = 48;
  static final int OTEL_SOURCE_NAME = 49;
  static final int OTEL_KAFKA_PARTITION = 50;
  static final int OTEL_DESTINATION_PARTITION = 51;
  static final int OTEL_SOURCE_PARTITION = 52;
  static final int OTEL_MESSAGE_OFFSET = 53;
  static final int OTEL_OFFSET_EXPERIMENTAL = 54;
  static final int OTEL_MESSAGE_ID = 55;
  static final int OTEL_MESSAGE_ID_OLD = 56;
  static final int OTEL_CONSUMER_GROUP = 57;
  static final int OTEL_CONSUMER_GROUP_OLD = 58;
  static final int OTEL_CLIENT_ID_OLD = 59;
  static final int OTEL_KAFKA_CLIENT_ID = 60;
  static final int OTEL_OPERATION = 61;
  static final int OTEL_OPERATION_TYPE = 62;
  static final int OTEL_OPERATION_NAME = 63;
  static final int OTEL_BATCH_COUNT = 64;
  static final int OTEL_ERROR_TYPE = 65;
  // Section 11 of the latency model: a share consumer's delivery of the record.
  static final int GROUP_TYPE = 66;
  static final int SHARE_DELIVERY_COUNT = 67;
  static final int SHARE_ACK_TIME = 68;
  static final int SHARE_ACK_TYPE = 69;
  static final int SHARE_ACK_ERROR = 70;

  // In slot order.
  private static final AttributeDef[] DEFS = {
    SpanAttributes.MESSAGING_DESTINATION_NAME,
    SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID,
    SpanAttributes.MESSAGING_KAFKA_OFFSET,
    SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME,
    SpanAttributes.MESSAGING_CLIENT_ID,
    SpanAttributes.SEND_TIME,
    SpanAttributes.DRAIN_TIME,
    SpanAttributes.ACK_TIME,
    SpanAttributes.POLL_TIME,
    SpanAttributes.FETCH_REQUEST_TIME,
    SpanAttributes.FETCH_RESPONSE_TIME,
    SpanAttributes.ERROR_TYPE,
    SpanAttributes.RECORD_TIMESTAMP_TYPE,
    SpanAttributes.RECORD_TIMESTAMP_MS,
    SpanAttributes.LEADER_NODE_ID,
    SpanAttributes.PRODUCER_ACKS,
    SpanAttributes.INSTANCE_ID,
    SpanAttributes.CONSUMER_FETCH_MIN_BYTES,
    SpanAttributes.FETCH_RESPONSE_READ_PROMPTLY,
    SpanAttributes.RECORD_UNCOMMITTED_TIME,
    EvidenceAttributes.PRODUCER_LINGER_MS,
    EvidenceAttributes.PRODUCER_BATCH_SIZE,
    EvidenceAttributes.PRODUCER_BUFFER_MEMORY,
    EvidenceAttributes.PRODUCER_MAX_IN_FLIGHT,
    SpanAttributes.BATCH_RECORD_COUNT,
    SpanAttributes.BATCH_SIZE_BYTES,
    SpanAttributes.PRODUCER_ATTEMPTS,
    EvidenceAttributes.CONSUMER_FETCH_MAX_WAIT_MS,
    EvidenceAttributes.CONSUMER_MAX_POLL_RECORDS,
    EvidenceAttributes.PRODUCER_APPEND_WAIT_NS,
    EvidenceAttributes.CONSUMER_POLL_GAP_NS,
    EvidenceAttributes.CONSUMER_PREVIOUS_POLL_RECORDS,
    EvidenceAttributes.PRODUCER_REQUEST_IN_FLIGHT,
    EvidenceAttributes.PRODUCER_REQUEST_BATCHES,
    EvidenceAttributes.CONSUMER_ASSIGNED_PARTITIONS,
    EvidenceAttributes.PRODUCER_METADATA_WAIT_MS,
    SpanAttributes.PRODUCER_RETRY_ERROR,
    SpanAttributes.CAPTURE,
    SpanAttributes.TAIL_THRESHOLD_NANOS,
    SpanAttributes.PRODUCER_TRANSACTIONAL,
    SpanAttributes.TXN_COMMIT_TIME,
    SpanAttributes.CONSUMER_ISOLATION_LEVEL,
    SpanAttributes.LINK_TOPIC,
    SpanAttributes.LINK_PARTITION,
    SpanAttributes.LINK_OFFSET,
    SpanAttributes.LINK_GROUP,
    SpanAttributes.LINK_COUNT,
    SpanAttributes.MESSAGING_SYSTEM,
    OtelMessagingAttributes.MESSAGING_DESTINATION,
    OtelMessagingAttributes.MESSAGING_SOURCE_NAME,
    OtelMessagingAttributes.MESSAGING_KAFKA_PARTITION,
    OtelMessagingAttributes.MESSAGING_KAFKA_DESTINATION_PARTITION,
    OtelMessagingAttributes.MESSAGING_KAFKA_SOURCE_PARTITION,
    OtelMessagingAttributes.MESSAGING_KAFKA_MESSAGE_OFFSET,
    OtelMessagingAttributes.KAFKA_OFFSET_EXPERIMENTAL,
    OtelMessagingAttributes.MESSAGING_MESSAGE_ID,
    OtelMessagingAttributes.MESSAGING_MESSAGE_ID_OLD,
    OtelMessagingAttributes.MESSAGING_KAFKA_CONSUMER_GROUP,
    OtelMessagingAttributes.MESSAGING_KAFKA_CONSUMER_GROUP_OLD,
    OtelMessagingAttributes.MESSAGING_CLIENT_ID_OLD,
    OtelMessagingAttributes.MESSAGING_KAFKA_CLIENT_ID,
    OtelMessagingAttributes.MESSAGING_OPERATION,
    OtelMessagingAttributes.MESSAGING_OPERATION_TYPE,
    OtelMessagingAttributes.MESSAGING_OPERATION_NAME,
    OtelMessagingAttributes.MESSAGING_BATCH_MESSAGE_COUNT,
    OtelMessagingAttributes.ERROR_TYPE,
    SpanAttributes.CONSUMER_GROUP_TYPE,
    SpanAttributes.SHARE_DELIVERY_COUNT,
    SpanAttributes.SHARE_ACKNOWLEDGE_TIME,
    SpanAttributes.SHARE_ACKNOWLEDGE_TYPE,
    SpanAttributes.SHARE_ACKNOWLEDGE_ERROR,
  };
  static final int COUNT = DEFS.length;

  static final byte ABSENT = 0;
  static final byte STRING = 1;
  static final byte LONG = 2;
  static final byte DOUBLE = 3;
  static final byte BOOL = 4;

  private static final Map<String, Integer> SLOT_BY_NAME = new HashMap<>();
  // Indexed by KnownKeys' table index, so that a key matched on its bytes finds its slot at once.
  private static final byte[] SLOT_BY_KNOWN_KEY = new byte[KnownKeys.TABLE_SIZE];

  static {
    java.util.Arrays.fill(SLOT_BY_KNOWN_KEY, (byte) -1);
    for (int slot = 0; slot < COUNT; slot++) {
      String name = DEFS[slot].name();
      SLOT_BY_NAME.put(name, slot);
      int known = KnownKeys.indexOf(name);
      if (known < 0) {
        throw new ExceptionInInitializerError(name + " is not a known key");
      }
      SLOT_BY_KNOWN_KEY[known] = (byte) slot;
    }
  }

  private final byte[] types = new byte[COUNT];
  // The long, or the double's bits, or 0 and 1 for a boolean.
  private final long[] bits = new long[COUNT];
  private final String[] strings = new String[COUNT];

  /** The slot of the key at {@code KnownKeys} table index {@code known}, or -1. */
  static int slotOfKnownKey(int known) {
    return known < 0 ? -1 : SLOT_BY_KNOWN_KEY[known];
  }

  static String name(int slot) {
    return DEFS[slot].name();
  }

  /** Sets the slot of {@code key} from a decoded JSON value; other keys are dropped. */
  void put(String key, Object value) {
    Integer slot = SLOT_BY_NAME.get(key);
    if (slot == null) {
      return;
    }
    if (value instanceof String s) {
      setString(slot, s);
    } else if (value instanceof Long l) {
      setLong(slot, l);
    } else if (value instanceof Double d) {
      setDouble(slot, d);
    } else if (value instanceof Boolean b) {
      setBool(slot, b);
    }
  }

  void setString(int slot, String value) {
    types[slot] = STRING;
    strings[slot] = value;
  }

  void setLong(int slot, long value) {
    types[slot] = LONG;
    bits[slot] = value;
    strings[slot] = null;
  }

  void setDouble(int slot, double value) {
    types[slot] = DOUBLE;
    bits[slot] = Double.doubleToRawLongBits(value);
    strings[slot] = null;
  }

  void setBool(int slot, boolean value) {
    types[slot] = BOOL;
    bits[slot] = value ? 1 : 0;
    strings[slot] = null;
  }

  void clear() {
    java.util.Arrays.fill(types, ABSENT);
    java.util.Arrays.fill(strings, null);
  }

  boolean has(int slot) {
    return types[slot] != ABSENT;
  }

  /** Whether the slot holds the boolean true. */
  boolean isTrue(int slot) {
    return types[slot] == BOOL && bits[slot] != 0;
  }

  byte type(int slot) {
    return types[slot];
  }

  /** The string value itself, or null when the slot holds something else. */
  String string(int slot) {
    return types[slot] == STRING ? strings[slot] : null;
  }

  /**
   * The value as an integer, or null when it is not one. The semantic conventions make the
   * partition a string and the agent writes ints elsewhere, so a string of digits and a whole
   * double count as integers for every slot.
   */
  boolean isLong(int slot) {
    return switch (types[slot]) {
      case LONG -> true;
      case STRING -> parsesAsLong(strings[slot]);
      case DOUBLE -> isWhole(Double.longBitsToDouble(bits[slot]));
      default -> false;
    };
  }

  /** The value as an integer; only after {@link #isLong} said it is one. */
  long longValue(int slot) {
    return switch (types[slot]) {
      case LONG -> bits[slot];
      case STRING -> Long.parseLong(strings[slot].trim());
      case DOUBLE -> (long) Double.longBitsToDouble(bits[slot]);
      default -> throw new IllegalStateException("slot " + slot + " is not an integer");
    };
  }

  /** The value as {@code String.valueOf} writes it, or "" when absent. */
  String asString(int slot) {
    return switch (types[slot]) {
      case STRING -> strings[slot];
      case LONG -> Long.toString(bits[slot]);
      case DOUBLE -> Double.toString(Double.longBitsToDouble(bits[slot]));
      case BOOL -> Boolean.toString(bits[slot] != 0);
      default -> "";
    };
  }

  private static boolean parsesAsLong(String s) {
    String t = s.trim();
    int n = t.length();
    // The common case, checked without an exception: optional sign, then ASCII digits.
    int i = n > 0 && (t.charAt(0) == '-' || t.charAt(0) == '+') ? 1 : 0;
    if (i < n && n - i < 19) {
      boolean digits = true;
      for (int j = i; j < n && digits; j++) {
        char c = t.charAt(j);
        digits = c >= '0' && c <= '9';
      }
      if (digits) {
        return true;
      }
    }
    try {
      Long.parseLong(t);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean isWhole(double d) {
    return d == Math.rint(d) && Math.abs(d) < 0x1p62;
  }
}
