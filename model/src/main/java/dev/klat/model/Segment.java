package dev.klat.model;

/**
 * The five segments that end-to-end latency {@code P - S} is split into, as defined in section 3 of
 * the latency model. They add up exactly: {@code produce + publish + commit + catch-up + fetch = P
 * - S}, for either order of {@code F} and {@code H}.
 *
 * <p>Constants are declared in the order the segments follow each other for one record.
 */
public enum Segment {
  /**
   * {@code D - S}: {@code send()} blocking (metadata, full buffer), waiting in the accumulator for
   * {@code linger.ms} or {@code batch.size}, waiting for an in-flight slot, and retries before the
   * successful attempt.
   */
  PRODUCE("produce", "D - S", TimePoint.SEND, TimePoint.DRAIN),

  /**
   * {@code L - D}: the produce request on the network, in the broker's request queue, and the
   * append to the leader's log. Unknown when {@code L} is unknown.
   */
  PUBLISH("publish", "L - D", TimePoint.DRAIN, TimePoint.APPEND),

  /**
   * {@code H - L}: replication to every in-sync replica until the high watermark passes the record.
   * Unknown when {@code L} is unknown.
   */
  COMMIT("commit", "H - L", TimePoint.APPEND, TimePoint.COMMIT),

  /**
   * {@code max(0, F - H) + (P - R)}: the record was committed but the consumer had not asked for it
   * yet (lag), plus the time it sat in the client's fetch buffer because the application had not
   * called {@code poll()}.
   */
  CATCH_UP(
      "catch-up",
      "max(0, F - H) + (P - R)",
      TimePoint.COMMIT,
      TimePoint.FETCH_REQUEST,
      TimePoint.FETCH_RESPONSE,
      TimePoint.POLL),

  /**
   * {@code R - max(F, H)}: from the moment the record was both committed and asked for, until the
   * fetch response reached the client: long-poll wait, {@code fetch.min.bytes}, {@code
   * fetch.max.wait.ms}, network.
   */
  FETCH(
      "fetch",
      "R - max(F, H)",
      TimePoint.COMMIT,
      TimePoint.FETCH_REQUEST,
      TimePoint.FETCH_RESPONSE);

  private final String id;
  private final String formula;
  // In TimePoint order, which Breakdown relies on to break quality ties towards the later instant.
  private final TimePoint[] inputs;

  Segment(String id, String formula, TimePoint... inputs) {
    this.id = id;
    this.formula = formula;
    this.inputs = inputs;
  }

  /**
   * Returns the stable identifier of this segment: the value of the {@value TagKeys#SEGMENT} metric
   * tag and of the {@code klat.segment} span attribute.
   *
   * @return {@code "produce"}, {@code "publish"}, {@code "commit"}, {@code "catch-up"} or {@code
   *     "fetch"}
   */
  public String id() {
    return id;
  }

  /**
   * Returns the formula of this segment in the latency model's notation, for documentation and
   * dashboards.
   *
   * @return for example {@code "D - S"} or {@code "R - max(F, H)"}
   */
  public String formula() {
    return formula;
  }

  /**
   * Returns the segment with the given {@link #id()}.
   *
   * @param id a segment id such as {@code "catch-up"}; may be null
   * @return the segment, or null when {@code id} is null or not the id of a segment
   */
  public static Segment fromId(String id) {
    for (Segment segment : values()) {
      if (segment.id.equals(id)) {
        return segment;
      }
    }
    return null;
  }

  TimePoint[] inputs() {
    return inputs;
  }
}
