package dev.klat.model;

/**
 * What the broker probe sends to the collector: OTLP log records, one per partition the broker
 * leads and per export, each saying which offsets were appended to the leader log and which offsets
 * the high watermark passed, and when, on the broker's wall clock (section 4 of the latency model,
 * quality {@code exact}).
 *
 * <p>A record carries {@link #TOPIC}, {@link #PARTITION}, {@link #LEADER_EPOCH} and two byte
 * attributes, {@link #APPENDS} and {@link #COMMITS}, each a list of offset ranges with a time,
 * packed by {@link #encodeRange}. An append range {@code [first, last]} is the offsets appended at
 * that time; a commit range {@code [first, last]} is the offsets the high watermark passed at that
 * time (the high watermark went from {@code first} to {@code last + 1}). Ranges are exact about
 * their offsets: a range the probe could not observe whole is never sent, so an offset no range
 * covers is unknown, never guessed. The resource carries {@link #BROKER_ID} and the probe's {@link
 * SpanAttributes#INSTANCE_ID}, which changes at every broker start: a leader term is (broker,
 * instance, leader epoch), and the collector pairs an append only with commits of the same term.
 *
 * <p>A range carries two times: the earliest and the latest event it joins (the probe joins the
 * batches of one partition that follow each other within a millisecond). A range of one batch has
 * both equal, exact; an offset of a joined range happened somewhere between them.
 *
 * <p>Packing: ranges in order, each as four varints, {@code zigzag(first - previousLast)}, {@code
 * last - first}, {@code zigzag(latestMicros - previousLatestMicros)} and {@code latestMicros -
 * earliestMicros}, with both "previous" values 0 before the first range. Times are wall-clock
 * microseconds since the Unix epoch.
 *
 * <p>A record may also carry {@link #COMMIT_FOLLOWERS}: for each commit range, in order, the
 * follower whose fetch moved the high watermark over it, packed by {@link #encodeFollower}. A
 * collector that does not know the attribute ignores it; a record without it says nothing about
 * followers.
 *
 * <p>A record may also carry {@link #APPEND_REQUESTS}: for each append range, in order, the produce
 * request that appended it, as the leader timed it: how long the request waited in the broker's
 * request queue, and how long from leaving the queue to the append (the handler's work: parsing,
 * validation, recompression, the append itself). Packed by {@link #encodeRequest}; absent when no
 * range's request was known (appends made off a request thread, a coordinator's writes).
 *
 * <p>Transactions (section 9 of the latency model): a record may also carry {@link #STABLES}, the
 * offsets the leader's last stable offset passed, packed as the other ranges, and {@link
 * #STABLE_FROM}. The probe sends them only for a partition whose last stable offset has lagged its
 * high watermark (an open transaction); from {@link #STABLE_FROM} on, every offset of the term is
 * in a stable range or unknown, and below it (and for a partition that never sends one) the last
 * stable offset passed each offset with the high watermark: {@code V = H}. A probe that reads the
 * last stable offset says so in its resource ({@link #READS_STABLE_OFFSET}); without it, a
 * collector cannot tell a partition without transactions from a probe that does not look, and takes
 * {@code V} from elsewhere. A collector that does not know these attributes ignores them.
 */
public final class BrokerProbeWire {

  /** {@value}: the instrumentation scope name of the probe's log records. */
  public static final String SCOPE_NAME = "klat-broker-probe";

  /** {@value}: resource attribute, the broker's {@code node.id} (integer). */
  public static final String BROKER_ID = "klat.broker.id";

  /** {@value}: log record attribute, the topic (string). */
  public static final String TOPIC = "klat.probe.topic";

  /** {@value}: log record attribute, the partition (integer). */
  public static final String PARTITION = "klat.probe.partition";

  /** {@value}: log record attribute, the leader epoch of the ranges (integer). */
  public static final String LEADER_EPOCH = "klat.probe.leader_epoch";

  /** {@value}: log record attribute, packed append ranges (bytes). */
  public static final String APPENDS = "klat.probe.appends";

  /** {@value}: log record attribute, packed high-watermark ranges (bytes). */
  public static final String COMMITS = "klat.probe.commits";

  /**
   * {@value}: log record attribute (bytes), per commit range the node id of the follower whose
   * fetch advanced the high watermark over it, or none (the leader alone in the ISR, an ISR
   * shrink): the follower the range's records waited for last.
   */
  public static final String COMMIT_FOLLOWERS = "klat.probe.commit_followers";

  /**
   * {@value}: log record attribute (bytes), per append range the produce request's time in the
   * leader's request queue and from there to the append ({@link #encodeRequest}). A range joining
   * several batches carries the longest of each among them.
   */
  public static final String APPEND_REQUESTS = "klat.probe.append_requests";

  /**
   * {@value}: log record attribute (bytes), packed ranges of the offsets the leader's last stable
   * offset passed, each with its time ({@code V}); sent only for a partition whose last stable
   * offset has lagged its high watermark.
   */
  public static final String STABLES = "klat.probe.stables";

  /**
   * {@value}: log record attribute (integer), the offset of the term from which the last stable
   * offset's advances are all in {@link #STABLES} ranges: an offset at or above it that no stable
   * range covers is unknown; an offset below it became stable with the high watermark.
   */
  public static final String STABLE_FROM = "klat.probe.stable_from";

  /**
   * {@value}: resource attribute (integer 1), the probe reads the leader's last stable offset at
   * each high-watermark advance: its partitions without {@link #STABLES} had no transaction wait.
   */
  public static final String READS_STABLE_OFFSET = "klat.probe.reads_stable_offset";

  /** A request time the probe could not read (the append was not made on a request thread). */
  public static final long UNKNOWN_MICROS = -1;

  /** A commit range's follower when no follower's fetch advanced the high watermark. */
  public static final int NO_FOLLOWER = -1;

  /**
   * {@value}: resource attribute, the broker's wall clock (microseconds) when the probe took the
   * events of this export: every event before it is in this export or an earlier one.
   */
  public static final String COVERED_UNTIL_MICROS = "klat.probe.covered_until_micros";

  /** {@value}: resource attribute, events the probe dropped since it started (integer). */
  public static final String DROPPED_EVENTS = "klat.probe.dropped_events";

  private BrokerProbeWire() {}

  /**
   * Appends one range to {@code out} at {@code position}, packed as the class describes.
   *
   * @param out the buffer, with at least 30 bytes free at {@code position}
   * @param position where to write
   * @param previousLast the previous range's last offset, or 0 for the first
   * @param previousMicros the previous range's latest time, or 0 for the first
   * @param first the first offset of the range
   * @param last the last offset of the range, at least {@code first}
   * @param earliestMicros the time of the range's first event
   * @param latestMicros the time of its last event, at least {@code earliestMicros}
   * @return the position after the range
   */
  public static int encodeRange(
      byte[] out,
      int position,
      long previousLast,
      long previousMicros,
      long first,
      long last,
      long earliestMicros,
      long latestMicros) {
    position = varint(out, position, zigzag(first - previousLast));
    position = varint(out, position, last - first);
    position = varint(out, position, zigzag(latestMicros - previousMicros));
    return varint(out, position, latestMicros - earliestMicros);
  }

  /** The most bytes one packed range takes. */
  public static final int MAX_RANGE_BYTES = 40;

  /** Receives the ranges of a packed list, in order. */
  public interface RangeSink {
    /**
     * One range.
     *
     * @param first its first offset
     * @param last its last offset, at least {@code first}
     * @param earliestMicros the time of its first event, wall-clock microseconds since the epoch
     * @param latestMicros the time of its last event, at least {@code earliestMicros}
     */
    void range(long first, long last, long earliestMicros, long latestMicros);
  }

  /**
   * Reads a packed list of ranges.
   *
   * @param in the bytes
   * @param offset where the list starts
   * @param length its length
   * @param sink receives each range
   * @return the number of ranges read
   * @throws IllegalArgumentException if the bytes are not a packed list (truncated, an overlong
   *     varint, or a range whose last offset is before its first); ranges before the error have
   *     already reached the sink
   */
  public static int decodeRanges(byte[] in, int offset, int length, RangeSink sink) {
    int end = offset + length;
    int[] position = {offset};
    long last = 0;
    long micros = 0;
    int count = 0;
    while (position[0] < end) {
      long first = last + unzigzag(readVarint(in, position, end));
      long width = readVarint(in, position, end);
      micros += unzigzag(readVarint(in, position, end));
      long spanMicros = readVarint(in, position, end);
      if (width < 0 || first < 0 || first + width < first) {
        throw new IllegalArgumentException("range " + count + " is not a range of offsets");
      }
      if (spanMicros < 0 || micros - spanMicros > micros) {
        throw new IllegalArgumentException("range " + count + " has a negative time span");
      }
      last = first + width;
      sink.range(first, last, micros - spanMicros, micros);
      count++;
    }
    return count;
  }

  /** The most bytes one packed follower takes. */
  public static final int MAX_FOLLOWER_BYTES = 5;

  /**
   * Appends one commit range's follower to {@code out} at {@code position}: a varint of the node id
   * plus one, 0 for {@link #NO_FOLLOWER}.
   *
   * @return the position after it
   */
  public static int encodeFollower(byte[] out, int position, int followerId) {
    return varint(out, position, followerId < 0 ? 0 : followerId + 1L);
  }

  /**
   * Reads a packed list of followers, one per commit range.
   *
   * @return the node ids, {@link #NO_FOLLOWER} where none
   * @throws IllegalArgumentException if the bytes are not a packed list of node ids
   */
  public static int[] decodeFollowers(byte[] in, int offset, int length) {
    int end = offset + length;
    int[] position = {offset};
    int[] out = new int[Math.min(length, 1024)];
    int count = 0;
    while (position[0] < end) {
      long value = readVarint(in, position, end);
      if (value > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("follower " + count + " is not a node id");
      }
      if (count == out.length) {
        out = java.util.Arrays.copyOf(out, count * 2);
      }
      out[count++] = (int) value - 1;
    }
    return java.util.Arrays.copyOf(out, count);
  }

  /** The most bytes one packed request takes. */
  public static final int MAX_REQUEST_BYTES = 20;

  /**
   * Appends one append range's request times to {@code out} at {@code position}: two varints, the
   * request queue time and the time from the queue to the append, each in microseconds plus one, 0
   * for {@link #UNKNOWN_MICROS}.
   *
   * @return the position after them
   */
  public static int encodeRequest(byte[] out, int position, long queueMicros, long localMicros) {
    position = varint(out, position, queueMicros < 0 ? 0 : queueMicros + 1);
    return varint(out, position, localMicros < 0 ? 0 : localMicros + 1);
  }

  /**
   * Reads a packed list of request times, one pair per append range.
   *
   * @return per range {@code [queueMicros, localMicros]} at {@code 2i} and {@code 2i + 1}, {@link
   *     #UNKNOWN_MICROS} where unknown
   * @throws IllegalArgumentException if the bytes are not a packed list of pairs
   */
  public static long[] decodeRequests(byte[] in, int offset, int length) {
    int end = offset + length;
    int[] position = {offset};
    long[] out = new long[Math.min(length, 2048)];
    int count = 0;
    while (position[0] < end) {
      if (count == out.length) {
        out = java.util.Arrays.copyOf(out, count * 2);
      }
      long value = readVarint(in, position, end);
      if (value < 0) {
        throw new IllegalArgumentException("request time " + count / 2 + " is negative");
      }
      out[count++] = value - 1;
    }
    if (count % 2 != 0) {
      throw new IllegalArgumentException("request times of " + count + " values are not pairs");
    }
    return java.util.Arrays.copyOf(out, count);
  }

  private static long zigzag(long value) {
    return (value << 1) ^ (value >> 63);
  }

  private static long unzigzag(long value) {
    return (value >>> 1) ^ -(value & 1);
  }

  private static int varint(byte[] out, int position, long value) {
    while ((value & ~0x7FL) != 0) {
      out[position++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out[position++] = (byte) value;
    return position;
  }

  private static long readVarint(byte[] in, int[] position, int end) {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (position[0] >= end) {
        throw new IllegalArgumentException("truncated range list");
      }
      byte b = in[position[0]++];
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("varint longer than 10 bytes");
  }
}
