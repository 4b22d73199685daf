package dev.klat.model;

/**
 * How trustworthy an instant, a segment or a whole breakdown is, as defined in section 4 of the
 * latency model. Constants are declared from best to worst, so a larger {@link #ordinal()} is
 * worse.
 */
public enum Quality {
  /** Measured by an agent, or reported exactly by a broker-side probe. */
  EXACT("exact"),

  /**
   * Taken from the record timestamp of a topic with {@code message.timestamp.type=LogAppendTime}:
   * the broker's own clock, at millisecond resolution.
   */
  LOG_APPEND_TIME("log-append-time"),

  /**
   * Read from an OpenTelemetry instrumentation's span on a client host that takes part in no clock
   * exchange (section 10 of the latency model): exact on its own clock, placed against the leader's
   * clock only by the records' bounds, which for a consumer hold on one side only. Worse than
   * {@link #LOG_APPEND_TIME}, whose clock the join aligns; better than {@link #CREATE_TIME}, whose
   * readings are milliseconds and may have been set by the application.
   */
  CLIENT_CLOCK("client-clock"),

  /**
   * Taken from the record timestamp of a topic with {@code message.timestamp.type=CreateTime}: the
   * producer's {@code S} at millisecond resolution (unless the application set the timestamp), on
   * the producer host's clock, which klat cannot align without the producer's span (section 8).
   * Worse than {@link #LOG_APPEND_TIME}, whose clock is the leader's and is aligned by the join;
   * better than an estimate, since it is a reading of the instant itself.
   */
  CREATE_TIME("create-time"),

  /** Estimated from broker metrics, or only bounded by other instants. */
  ESTIMATED("estimated"),

  /** Not known: the value is missing, or how it was obtained is not known. */
  NONE("none");

  private final String id;

  Quality(String id) {
    this.id = id;
  }

  /**
   * Returns the stable identifier of this quality: the value of the {@value TagKeys#QUALITY} metric
   * tag and of the {@code klat.quality} span attribute.
   *
   * @return {@code "exact"}, {@code "log-append-time"}, {@code "client-clock"}, {@code
   *     "create-time"}, {@code "estimated"} or {@code "none"}
   */
  public String id() {
    return id;
  }

  /**
   * Returns the quality with the given {@link #id()}.
   *
   * @param id a quality id such as {@code "log-append-time"}; may be null
   * @return the quality, or null when {@code id} is null or not the id of a quality
   */
  public static Quality fromId(String id) {
    for (Quality quality : values()) {
      if (quality.id.equals(id)) {
        return quality;
      }
    }
    return null;
  }

  /**
   * Returns the worse of two qualities: a value computed from both is only as good as its worst
   * input.
   *
   * @param a a quality, not null
   * @param b a quality, not null
   * @return {@code a} or {@code b}, whichever comes later in declaration order
   * @throws NullPointerException if {@code a} or {@code b} is null
   */
  public static Quality worst(Quality a, Quality b) {
    return a.ordinal() >= b.ordinal() ? a : b;
  }
}
