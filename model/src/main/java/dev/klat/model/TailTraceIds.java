package dev.klat.model;

import java.nio.charset.StandardCharsets;

/**
 * The trace id of a tail-captured record that was not sampled (section 8 of the latency model):
 * derived from {@code (topic, partition, offset)}, so that the producer's and the consumer's agents
 * give the record the same id without any header, the scale-out ingest routes both halves to the
 * same join member, and an exemplar has a trace to open.
 *
 * <p>The id is two rounds of a 64-bit mix (the finaliser of SplitMix64) over the topic's UTF-8
 * bytes, the partition and the offset, with different seeds for its two halves. It is not
 * cryptographic: it needs to be the same on both sides and spread evenly, not to be secret. The
 * high half's top bits are fixed to {@link #MARK}, so a derived id is told from a random one (1 in
 * 65,536 random ids look derived: harmless, since the mark only labels).
 *
 * <p>Allocation-free for the caller that keeps the topic's {@link #topicHash(String)}: the agents
 * hash a topic once per topic, not per record.
 */
public final class TailTraceIds {

  /** The top 16 bits of a derived id's high half: {@code 0x7a11} ("tail"). */
  public static final long MARK = 0x7a11L;

  private static final long SEED_HIGH = 0x9e3779b97f4a7c15L;
  private static final long SEED_LOW = 0xc2b2ae3d27d4eb4fL;

  private TailTraceIds() {}

  /**
   * A hash of the topic's name, to be kept per topic and passed to {@link #high} and {@link #low}.
   *
   * @param topic the topic, not null
   * @return the hash
   */
  public static long topicHash(String topic) {
    long h = 0xcbf29ce484222325L;
    for (byte b : topic.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    return mix(h);
  }

  /**
   * The high 64 bits of the derived trace id.
   *
   * @param topicHash {@link #topicHash(String)} of the record's topic
   * @param partition the record's partition
   * @param offset the record's offset
   * @return the high half, whose top 16 bits are {@link #MARK}
   */
  public static long high(long topicHash, int partition, long offset) {
    long h = mix(mix(topicHash ^ SEED_HIGH ^ partition) ^ offset);
    return (MARK << 48) | (h >>> 16);
  }

  /**
   * The low 64 bits of the derived trace id: never zero together with {@link #high}, which the mark
   * keeps non-zero.
   *
   * @param topicHash {@link #topicHash(String)} of the record's topic
   * @param partition the record's partition
   * @param offset the record's offset
   * @return the low half
   */
  public static long low(long topicHash, int partition, long offset) {
    return mix(mix(topicHash ^ SEED_LOW ^ ((long) partition << 32)) ^ Long.rotateLeft(offset, 17));
  }

  /**
   * Whether a trace id's high half carries the mark of a derived id.
   *
   * @param high the high 64 bits of a trace id
   * @return true when its top 16 bits are {@link #MARK}
   */
  public static boolean isDerived(long high) {
    return (high >>> 48) == MARK;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
