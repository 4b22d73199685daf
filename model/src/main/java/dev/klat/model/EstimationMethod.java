package dev.klat.model;

/**
 * How an instant, or a segment computed from instants, was obtained. Dashboards show it next to
 * estimated values (section 4 of the latency model: each estimated segment says how it was
 * estimated). Each method implies a {@link Quality}.
 */
public enum EstimationMethod {
  /**
   * Taken by the agent inside the client with the JVM's clocks: how {@code S, D, A, F, R, P} are
   * obtained. {@link Quality#EXACT}.
   */
  MEASURED("measured", Quality.EXACT),

  /**
   * Reported by a broker-side probe: the append time of the batch ({@code L}) or the moment the
   * high watermark passed the offset ({@code H}). {@link Quality#EXACT}.
   */
  BROKER_PROBE("broker-probe", Quality.EXACT),

  /**
   * {@code L} taken from the record timestamp of a topic with {@code
   * message.timestamp.type=LogAppendTime}, on the broker's clock at millisecond resolution. {@link
   * Quality#LOG_APPEND_TIME}.
   */
  LOG_APPEND_TIMESTAMP("log-append-timestamp", Quality.LOG_APPEND_TIME),

  /**
   * {@code S} taken from the record timestamp of a topic with {@code
   * message.timestamp.type=CreateTime}, for a tail record flagged by its consumer alone (section 8
   * of the latency model): milliseconds, on the producer host's clock, placed on the consumer's
   * timeline without an offset. {@link Quality#CREATE_TIME}.
   */
  CREATE_TIMESTAMP("create-timestamp", Quality.CREATE_TIME),

  /**
   * {@code S}, {@code A} or {@code P} read from an OpenTelemetry Kafka instrumentation's span
   * (section 10 of the latency model): the span's start ({@code S}, {@code P}) or, where the
   * instrumentation ends it at the acknowledgement, its end ({@code A}), on a client host whose
   * clock klat places only by the records' bounds. {@link Quality#CLIENT_CLOCK}.
   */
  OPENTELEMETRY_SPAN("opentelemetry-span", Quality.CLIENT_CLOCK),

  /**
   * {@code L} estimated by splitting the produce round trip {@code A - D} with the leader broker's
   * Produce request metrics of that moment ({@code RequestQueueTimeMs}, {@code LocalTimeMs}, {@code
   * RemoteTimeMs}, {@code ResponseQueueTimeMs}, {@code ResponseSendTimeMs}, {@code TotalTimeMs}).
   * {@link Quality#ESTIMATED}.
   */
  PRODUCE_REQUEST_METRICS("produce-request-metrics", Quality.ESTIMATED),

  /**
   * {@code H} estimated as {@code L} plus the leader's Produce {@code RemoteTimeMs}, which with
   * {@code acks=all} is the wait for the in-sync replicas. {@link Quality#ESTIMATED}.
   */
  PRODUCE_REMOTE_TIME("produce-remote-time", Quality.ESTIMATED),

  /**
   * {@code H} estimated from the leader's follower fetch metrics ({@code FetchFollower}), for
   * {@code acks=0} and {@code acks=1}. {@link Quality#ESTIMATED}.
   */
  FOLLOWER_FETCH_METRICS("follower-fetch-metrics", Quality.ESTIMATED),

  /**
   * {@code H} read from the consumer's side, for {@code acks=0} and {@code acks=1}: a fetch with
   * {@code fetch.min.bytes=1} that was waiting at the leader when the record was committed is
   * answered at that moment, so {@code H} is {@code R} less the leader's mean throttle, response
   * queue and send time for consumer fetches ({@code FetchConsumer}). {@link Quality#ESTIMATED}.
   */
  CONSUMER_FETCH_WAIT("consumer-fetch-wait", Quality.ESTIMATED),

  /**
   * {@code H} only bounded by {@code H <= R}, because no broker data was available. {@link
   * Quality#ESTIMATED}.
   */
  FETCH_RESPONSE_BOUND("fetch-response-bound", Quality.ESTIMATED),

  /**
   * {@code H} bounded by {@code H <= min(A, R)}: with {@code acks=all} the leader answers only once
   * the record is committed, so the acknowledgement follows {@code H}; used when no broker data was
   * available. {@link Quality#ESTIMATED}.
   */
  ACK_BOUND("ack-bound", Quality.ESTIMATED),

  /**
   * {@code V} taken from the producer's {@code commitTransaction()} return ({@code C}), clamped to
   * {@code [H, R]} (section 9 of the latency model). {@link Quality#ESTIMATED}.
   */
  TRANSACTION_COMMIT("transaction-commit", Quality.ESTIMATED),

  /** Not known how the value was obtained, or the value is missing. {@link Quality#NONE}. */
  UNKNOWN("unknown", Quality.NONE);

  private final String id;
  private final Quality quality;

  EstimationMethod(String id, Quality quality) {
    this.id = id;
    this.quality = quality;
  }

  /**
   * Returns the stable identifier of this method: the value of the {@value TagKeys#METHOD} metric
   * tag and of the {@code klat.method} span attribute.
   *
   * @return a lowercase, hyphen-separated id such as {@code "produce-remote-time"}
   */
  public String id() {
    return id;
  }

  /**
   * Returns the quality of a value obtained with this method.
   *
   * @return {@link Quality#EXACT} for {@link #MEASURED} and {@link #BROKER_PROBE}, {@link
   *     Quality#LOG_APPEND_TIME} for {@link #LOG_APPEND_TIMESTAMP}, {@link Quality#CREATE_TIME} for
   *     {@link #CREATE_TIMESTAMP}, {@link Quality#NONE} for {@link #UNKNOWN}, {@link
   *     Quality#ESTIMATED} otherwise
   */
  public Quality quality() {
    return quality;
  }

  /**
   * Returns the method with the given {@link #id()}.
   *
   * @param id a method id such as {@code "broker-probe"}; may be null
   * @return the method, or null when {@code id} is null or not the id of a method
   */
  public static EstimationMethod fromId(String id) {
    for (EstimationMethod method : values()) {
      if (method.id.equals(id)) {
        return method;
      }
    }
    return null;
  }
}
