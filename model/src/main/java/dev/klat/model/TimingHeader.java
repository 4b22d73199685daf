package dev.klat.model;

/**
 * The binary layout of the {@value HeaderNames#TIMING} record header, which carries the sampling
 * decision and {@code S} from the producer agent to the consumer agents.
 *
 * <p>The first byte is the layout version; every version is at most {@value #MAX_LENGTH} bytes.
 * Version 1 is {@value #V1_LENGTH} bytes, big-endian:
 *
 * <table>
 *   <caption>Timing header, version 1</caption>
 *   <tr><th>bytes</th><th>field</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>0</td><td>version</td><td>uint8</td><td>{@code 1}</td></tr>
 *   <tr><td>1</td><td>flags</td><td>uint8</td><td>bit 0 (value {@code 0x01}): sampled; bits 1 to
 *       7: reserved, zero in version 1</td></tr>
 *   <tr><td>2..9</td><td>sendEpochMicros</td><td>int64</td><td>{@code S} on the producer host's
 *       wall clock, in microseconds since the Unix epoch; {@code > 0}</td></tr>
 *   <tr><td>10..17</td><td>producerInstanceId</td><td>int64</td><td>random per producer agent
 *       instance, naming the clock domain {@code sendEpochMicros} was read in, so that the
 *       collector can pair clocks; {@code 0} is invalid</td></tr>
 * </table>
 *
 * <p>Encoding validates its arguments and throws, because invalid values are a bug of the producer
 * agent. Decoding reads bytes written by any producer and never throws: it returns a {@link
 * DecodeError} whose {@linkplain DecodeError#id() id} is the {@value TagKeys#REASON} tag of the
 * {@code klat.agent.headers.invalid} counter. Neither direction allocates on the hot path: {@link
 * #encode(long, long, boolean, byte[], int)} writes into a caller's array and {@link
 * #decode(byte[], Decoded)} fills a reusable {@link Decoded}.
 *
 * <p>A check against the consumer's own clock needs a clock, so it is separate: {@link
 * #checkPlausible(long, long, long, long)}.
 */
public final class TimingHeader {

  /** {@value}: the largest header any version may use, in bytes. */
  public static final int MAX_LENGTH = 32;

  /** {@value}: the length of a version 1 header, in bytes. */
  public static final int V1_LENGTH = 18;

  /** {@value}: the version this class writes, and the only one it reads. */
  public static final int VERSION_1 = 1;

  /** {@value}: the bit of the flags byte that says the record is sampled. */
  public static final int FLAG_SAMPLED = 0x01;

  private static final int OFFSET_VERSION = 0;
  private static final int OFFSET_FLAGS = 1;
  private static final int OFFSET_SEND_EPOCH_MICROS = 2;
  private static final int OFFSET_PRODUCER_INSTANCE_ID = 10;

  private TimingHeader() {}

  /**
   * Writes a version 1 header into {@code target} at {@code offset}.
   *
   * @param sendEpochMicros {@code S} on the producer host's wall clock, in microseconds since the
   *     Unix epoch; must be {@code > 0}
   * @param producerInstanceId the producer agent's instance id; must not be 0
   * @param sampled whether the record is sampled
   * @param target the array to write into, not null
   * @param offset where to write the first byte; {@value #V1_LENGTH} bytes must fit from there
   * @return the number of bytes written, {@value #V1_LENGTH}
   * @throws IllegalArgumentException if {@code sendEpochMicros <= 0} or {@code producerInstanceId
   *     == 0}
   * @throws IndexOutOfBoundsException if the header does not fit in {@code target} at {@code
   *     offset}; nothing is written then
   * @throws NullPointerException if {@code target} is null
   */
  public static int encode(
      long sendEpochMicros, long producerInstanceId, boolean sampled, byte[] target, int offset) {
    if (sendEpochMicros <= 0) {
      throw new IllegalArgumentException("sendEpochMicros must be > 0: " + sendEpochMicros);
    }
    if (producerInstanceId == 0) {
      throw new IllegalArgumentException("producerInstanceId must not be 0");
    }
    if (offset < 0 || offset > target.length - V1_LENGTH) {
      throw new IndexOutOfBoundsException(
          "header of "
              + V1_LENGTH
              + " bytes does not fit at offset "
              + offset
              + " of an array of "
              + target.length);
    }
    target[offset + OFFSET_VERSION] = (byte) VERSION_1;
    target[offset + OFFSET_FLAGS] = (byte) (sampled ? FLAG_SAMPLED : 0);
    writeLong(target, offset + OFFSET_SEND_EPOCH_MICROS, sendEpochMicros);
    writeLong(target, offset + OFFSET_PRODUCER_INSTANCE_ID, producerInstanceId);
    return V1_LENGTH;
  }

  /**
   * Returns a new version 1 header.
   *
   * @param sendEpochMicros {@code S} on the producer host's wall clock, in microseconds since the
   *     Unix epoch; must be {@code > 0}
   * @param producerInstanceId the producer agent's instance id; must not be 0
   * @param sampled whether the record is sampled
   * @return a new array of {@value #V1_LENGTH} bytes
   * @throws IllegalArgumentException if {@code sendEpochMicros <= 0} or {@code producerInstanceId
   *     == 0}
   */
  public static byte[] encode(long sendEpochMicros, long producerInstanceId, boolean sampled) {
    byte[] header = new byte[V1_LENGTH];
    encode(sendEpochMicros, producerInstanceId, sampled, header, 0);
    return header;
  }

  /**
   * Decodes a header value. Never throws, whatever {@code value} holds.
   *
   * <p>On success fills {@code target} and makes it {@linkplain Decoded#isValid() valid}. On any
   * error resets {@code target} to its initial state: not valid, version 0, not sampled, time and
   * instance id 0; the previous content is never left behind.
   *
   * @param value the header value as read from the record; may be null (the header is missing)
   * @param target the holder to fill, reused across calls; may be null to only validate
   * @return {@link DecodeError#NONE} on success, otherwise the first problem found, checked in the
   *     order of {@link DecodeError}'s constants
   */
  public static DecodeError decode(byte[] value, Decoded target) {
    DecodeError error = check(value);
    if (target != null) {
      if (error == DecodeError.NONE) {
        target.set(
            value[OFFSET_VERSION] & 0xFF,
            (value[OFFSET_FLAGS] & FLAG_SAMPLED) != 0,
            readLong(value, OFFSET_SEND_EPOCH_MICROS),
            readLong(value, OFFSET_PRODUCER_INSTANCE_ID));
      } else {
        target.clear();
      }
    }
    return error;
  }

  private static DecodeError check(byte[] value) {
    if (value == null) {
      return DecodeError.MISSING;
    }
    if (value.length == 0) {
      return DecodeError.EMPTY;
    }
    if (value.length > MAX_LENGTH) {
      return DecodeError.TOO_LONG;
    }
    if ((value[OFFSET_VERSION] & 0xFF) != VERSION_1) {
      return DecodeError.UNSUPPORTED_VERSION;
    }
    if (value.length != V1_LENGTH) {
      return DecodeError.WRONG_LENGTH;
    }
    if ((value[OFFSET_FLAGS] & ~FLAG_SAMPLED) != 0) {
      return DecodeError.RESERVED_FLAGS;
    }
    if (readLong(value, OFFSET_SEND_EPOCH_MICROS) <= 0) {
      return DecodeError.NON_POSITIVE_TIME;
    }
    if (readLong(value, OFFSET_PRODUCER_INSTANCE_ID) == 0) {
      return DecodeError.ZERO_INSTANCE_ID;
    }
    return DecodeError.NONE;
  }

  /**
   * Checks a decoded send time against the consumer's own wall clock. Never throws and never
   * overflows, whatever the arguments.
   *
   * @param sendEpochMicros {@code S} from the header, in microseconds since the Unix epoch
   * @param nowEpochMicros the consumer host's wall clock now, in microseconds since the Unix epoch
   * @param maxFutureMicros how far {@code S} may lie ahead of now, to allow for clock offsets; not
   *     negative
   * @param maxAgeMicros how far {@code S} may lie behind now; not negative
   * @return {@link DecodeError#FUTURE_TIME} if {@code sendEpochMicros - nowEpochMicros >
   *     maxFutureMicros}, {@link DecodeError#TOO_OLD} if {@code nowEpochMicros - sendEpochMicros >
   *     maxAgeMicros}, otherwise {@link DecodeError#NONE}
   */
  public static DecodeError checkPlausible(
      long sendEpochMicros, long nowEpochMicros, long maxFutureMicros, long maxAgeMicros) {
    if (differenceExceeds(sendEpochMicros, nowEpochMicros, maxFutureMicros)) {
      return DecodeError.FUTURE_TIME;
    }
    if (differenceExceeds(nowEpochMicros, sendEpochMicros, maxAgeMicros)) {
      return DecodeError.TOO_OLD;
    }
    return DecodeError.NONE;
  }

  // later - earlier > limit, computed without overflow: a difference that does not fit in a long
  // is beyond any limit in its direction.
  static boolean differenceExceeds(long later, long earlier, long limit) {
    long difference = later - earlier;
    boolean overflow = ((later ^ earlier) & (later ^ difference)) < 0;
    if (overflow) {
      return later > earlier;
    }
    return difference > limit;
  }

  private static void writeLong(byte[] target, int offset, long value) {
    for (int i = 7; i >= 0; i--) {
      target[offset + i] = (byte) value;
      value >>>= 8;
    }
  }

  private static long readLong(byte[] source, int offset) {
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (source[offset + i] & 0xFF);
    }
    return value;
  }

  /**
   * Why a timing header could not be used. The {@linkplain #id() id} is stable: it is the value of
   * the {@value TagKeys#REASON} tag of the {@code klat.agent.headers.invalid} counter.
   *
   * <p>{@link TimingHeader#decode(byte[], Decoded)} checks in the order of the constants and
   * reports the first problem; {@link #FUTURE_TIME} and {@link #TOO_OLD} come only from {@link
   * TimingHeader#checkPlausible(long, long, long, long)}.
   */
  public enum DecodeError {
    /** The header is valid. */
    NONE("none", "valid"),
    /** The record has no timing header (the value is null). */
    MISSING("missing", "no timing header"),
    /** The header value has no bytes. */
    EMPTY("empty", "timing header is empty"),
    /** The header value is longer than {@value TimingHeader#MAX_LENGTH} bytes. */
    TOO_LONG("too-long", "timing header longer than " + MAX_LENGTH + " bytes"),
    /** The version byte is 0, or a version newer than this reader knows. */
    UNSUPPORTED_VERSION("unsupported-version", "timing header version is not supported"),
    /** The header says version 1 but is not {@value TimingHeader#V1_LENGTH} bytes long. */
    WRONG_LENGTH("wrong-length", "version 1 timing header is not " + V1_LENGTH + " bytes long"),
    /** A flag bit that version 1 reserves is set. */
    RESERVED_FLAGS("reserved-flags", "timing header sets reserved flag bits"),
    /** The send time is zero or negative. */
    NON_POSITIVE_TIME("non-positive-time", "timing header send time is not positive"),
    /** The producer instance id is 0, which is reserved as invalid. */
    ZERO_INSTANCE_ID("zero-instance-id", "timing header producer instance id is 0"),
    /** The send time lies further ahead of the consumer's clock than allowed. */
    FUTURE_TIME("future-time", "timing header send time is too far in the future"),
    /** The send time lies further behind the consumer's clock than allowed. */
    TOO_OLD("too-old", "timing header send time is too old");

    private final String id;
    private final String message;

    DecodeError(String id, String message) {
      this.id = id;
      this.message = message;
    }

    /**
     * Returns the stable identifier of this error, used as a metric tag value.
     *
     * @return a lowercase, hyphen-separated id such as {@code "wrong-length"}
     */
    public String id() {
      return id;
    }

    /**
     * Returns a human-readable description of this error, for logs.
     *
     * @return the message, never null
     */
    public String message() {
      return message;
    }
  }

  /**
   * A decoded timing header: a mutable holder that {@link TimingHeader#decode(byte[], Decoded)}
   * fills, so that a consumer can decode every record into the same instance without allocating.
   * Not thread-safe: use one per thread, as the consumer's {@code poll()} loop does.
   *
   * <p>A new holder, and a holder after a failed decode, is not {@linkplain #isValid() valid} and
   * holds zeros and false.
   */
  public static final class Decoded {
    private boolean valid;
    private int version;
    private boolean sampled;
    private long sendEpochMicros;
    private long producerInstanceId;

    /** Creates a holder that is not valid. */
    public Decoded() {}

    void set(int version, boolean sampled, long sendEpochMicros, long producerInstanceId) {
      this.valid = true;
      this.version = version;
      this.sampled = sampled;
      this.sendEpochMicros = sendEpochMicros;
      this.producerInstanceId = producerInstanceId;
    }

    void clear() {
      set(0, false, 0, 0);
      this.valid = false;
    }

    /**
     * Returns whether the last decode into this holder succeeded.
     *
     * @return true if the fields hold a decoded header
     */
    public boolean isValid() {
      return valid;
    }

    /**
     * Returns the layout version of the decoded header.
     *
     * @return {@value TimingHeader#VERSION_1} when valid, 0 otherwise
     */
    public int version() {
      return version;
    }

    /**
     * Returns whether the producer sampled the record.
     *
     * @return the sampled flag when valid, false otherwise
     */
    public boolean sampled() {
      return sampled;
    }

    /**
     * Returns {@code S} on the producer host's wall clock.
     *
     * @return microseconds since the Unix epoch, {@code > 0} when valid, 0 otherwise
     */
    public long sendEpochMicros() {
      return sendEpochMicros;
    }

    /**
     * Returns the producer agent's instance id, which names the producer's clock domain.
     *
     * @return the id, not 0 when valid, 0 otherwise
     */
    public long producerInstanceId() {
      return producerInstanceId;
    }

    /**
     * Returns the decoded fields, for logs and test failures.
     *
     * @return for example {@code Decoded{v1 sampled sendEpochMicros=1700000000000000
     *     producerInstanceId=42}}, or {@code Decoded{invalid}}
     */
    @Override
    public String toString() {
      if (!valid) {
        return "Decoded{invalid}";
      }
      return "Decoded{v"
          + version
          + (sampled ? " sampled" : " unsampled")
          + " sendEpochMicros="
          + sendEpochMicros
          + " producerInstanceId="
          + producerInstanceId
          + '}';
    }
  }
}
