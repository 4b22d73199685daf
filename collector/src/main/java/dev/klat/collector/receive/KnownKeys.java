package dev.klat.collector.receive;

import dev.klat.model.AttributeDef;
import dev.klat.model.OtelMessagingAttributes;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TagKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The attribute keys klat reads, matched as UTF-8 bytes straight from the request buffer: a known
 * key costs no allocation, and its {@code String} already has its hash cached for the map it goes
 * into. Unknown keys fall back to a new {@code String}. Immutable after class initialisation.
 */
final class KnownKeys {
  static final int TABLE_SIZE = 512; // a power of two, at least four times the key count
  private static final int SLOTS = TABLE_SIZE;
  private static final byte[][] BYTES = new byte[SLOTS][];
  private static final String[] KEYS = new String[SLOTS];

  static {
    List<String> keys = new ArrayList<>();
    for (AttributeDef def : SpanAttributes.all()) {
      keys.add(def.name());
    }
    for (AttributeDef def : OtelMessagingAttributes.all()) {
      keys.add(def.name());
    }
    keys.addAll(
        List.of(
            TagKeys.TOPIC,
            TagKeys.GROUP,
            TagKeys.CLIENT_ID,
            TagKeys.PARTITION,
            TagKeys.REASON,
            TagKeys.INSTANT,
            OtelMessagingAttributes.RESOURCE_SERVICE_NAME,
            OtelMessagingAttributes.RESOURCE_SERVICE_INSTANCE_ID,
            OtelMessagingAttributes.RESOURCE_HOST_NAME,
            OtelMessagingAttributes.RESOURCE_PROCESS_PID));
    if (keys.size() * 4 > TABLE_SIZE) {
      throw new ExceptionInInitializerError(keys.size() + " keys need a larger table");
    }
    for (String key : keys) {
      byte[] b = key.getBytes(StandardCharsets.UTF_8);
      int slot = hash(b, 0, b.length) & (SLOTS - 1);
      while (KEYS[slot] != null && !KEYS[slot].equals(key)) {
        slot = (slot + 1) & (SLOTS - 1);
      }
      KEYS[slot] = key;
      BYTES[slot] = b;
    }
  }

  private KnownKeys() {}

  static String of(byte[] buf, int from, int length) {
    int index = find(buf, from, length);
    return index >= 0 ? KEYS[index] : new String(buf, from, length, StandardCharsets.UTF_8);
  }

  /** The key's index in the table (below {@link #TABLE_SIZE}), or -1 when klat does not know it. */
  static int find(byte[] buf, int from, int length) {
    int slot = hash(buf, from, length) & (SLOTS - 1);
    while (BYTES[slot] != null) {
      byte[] candidate = BYTES[slot];
      if (candidate.length == length && equal(candidate, buf, from)) {
        return slot;
      }
      slot = (slot + 1) & (SLOTS - 1);
    }
    return -1;
  }

  static int indexOf(String key) {
    byte[] b = key.getBytes(StandardCharsets.UTF_8);
    return find(b, 0, b.length);
  }

  private static boolean equal(byte[] candidate, byte[] buf, int from) {
    for (int i = 0; i < candidate.length; i++) {
      if (candidate[i] != buf[from + i]) {
        return false;
      }
    }
    return true;
  }

  // The length and four bytes spread over the key, not every byte: klat's keys are long and share
  // prefixes ("messaging.", "klat."), and every span carries a dozen of them, so hashing all their
  // bytes was a visible part of decoding. Collisions only cost a comparison more; a match is
  // always checked byte for byte.
  private static int hash(byte[] b, int from, int length) {
    if (length == 0) {
      return 0;
    }
    int last = from + length - 1;
    int h = length;
    h = 31 * h + b[last];
    h = 31 * h + b[last - (length >> 1)];
    h = 31 * h + b[last - (length >> 2)];
    h = 31 * h + b[from + (length >> 3)];
    return h ^ (h >>> 16);
  }
}
