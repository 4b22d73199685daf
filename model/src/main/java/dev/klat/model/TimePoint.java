package dev.klat.model;

/**
 * The eight instants in the life of one record, from {@code send()} to {@code poll()}, as defined
 * in section 2 of the latency model.
 *
 * <p>Constants are declared in the order of the causal chain {@code S <= D <= L <= H <= R <= P},
 * with {@code A} after {@code D} and {@code F} before {@code R}; {@link #ordinal()} follows it.
 * {@code F}, {@code R} and {@code P} exist once per consumer group.
 */
public enum TimePoint {
  /**
   * {@code S}: the application called {@code KafkaProducer.send(record, ...)}; taken before
   * serialization, metadata wait, or blocking on {@code buffer.memory}. The origin of the
   * end-to-end latency.
   */
  SEND("S", Observer.PRODUCER),

  /**
   * {@code D}: the record's batch was drained from the accumulator into a produce request for the
   * partition leader. With retries, the drain of the attempt that succeeded.
   */
  DRAIN("D", Observer.PRODUCER),

  /**
   * {@code A}: the produce response for the record's batch was received, and the callback is about
   * to run. Informational: no segment ends at {@code A}, but it bounds {@code L <= A}.
   */
  ACK("A", Observer.PRODUCER),

  /** {@code L}: the batch was appended to the leader's log. */
  APPEND("L", Observer.BROKER),

  /**
   * {@code H}: the leader's high watermark moved past the record's offset; the record is committed
   * and readable by consumers.
   */
  COMMIT("H", Observer.BROKER),

  /** {@code F(g)}: the fetch request that returned the record to group {@code g} was sent. */
  FETCH_REQUEST("F", Observer.CONSUMER),

  /**
   * {@code R(g)}: the fetch response carrying the record was received by the client of {@code g}.
   */
  FETCH_RESPONSE("R", Observer.CONSUMER),

  /** {@code P(g)}: {@code poll()} returned the record to the application of group {@code g}. */
  POLL("P", Observer.CONSUMER);

  /** The process that observes an instant, and therefore the clock it is read from. */
  public enum Observer {
    /** The producer agent, on the producer host's clock. */
    PRODUCER,
    /** The partition's leader broker, on the broker host's clock. */
    BROKER,
    /** The consumer agent of one consumer group, on the consumer host's clock. */
    CONSUMER
  }

  private final String symbol;
  private final Observer observer;

  TimePoint(String symbol, Observer observer) {
    this.symbol = symbol;
    this.observer = observer;
  }

  /**
   * Returns the one-letter symbol the latency model uses for this instant.
   *
   * @return {@code "S"}, {@code "D"}, {@code "A"}, {@code "L"}, {@code "H"}, {@code "F"}, {@code
   *     "R"} or {@code "P"}
   */
  public String symbol() {
    return symbol;
  }

  /**
   * Returns who observes this instant, which also says whose clock it is read from.
   *
   * @return the observer, never null
   */
  public Observer observer() {
    return observer;
  }
}
