package dev.klat.model;

import java.util.Arrays;

/**
 * The eight instants of one record and one consumer group, on one common timeline, each with the
 * {@link EstimationMethod} it was obtained with. Immutable and thread-safe.
 *
 * <p>All values are nanoseconds on the same timeline: whoever builds an {@code Instants} has
 * already placed the producer's, the broker's and the consumer's readings on one clock (section 5
 * of the latency model). The origin is arbitrary, for example the Unix epoch.
 *
 * <p>{@link TimePoint#ACK} and {@link TimePoint#APPEND} are optional. Without {@code APPEND} the
 * publish and commit segments cannot be separated; see {@link Breakdown}. A record seen by both
 * sides has all other instants. A tail record seen by one side only (section 8 of the latency
 * model) has that side's instants, so three shapes are accepted:
 *
 * <ul>
 *   <li>both sides: {@code S, D, H, F, R, P} ({@code A, L} optional);
 *   <li>the producer only: {@code S, D} ({@code A, L, H} optional; no {@code F, R, P});
 *   <li>the consumer only: {@code H, F, R, P} ({@code S} from a {@code CreateTime} timestamp and
 *       {@code L} optional; no {@code D, A}).
 * </ul>
 *
 * <p>That is: a producer-side instant ({@code D} or {@code A}) requires {@code S} and {@code D}; a
 * consumer-side instant ({@code F}, {@code R} or {@code P}) requires {@code F, R, P} and {@code H};
 * and one side must be there. A side read from an OpenTelemetry instrumentation's span (section 10
 * of the latency model; its {@code S} or {@code P} has the method {@link
 * EstimationMethod#OPENTELEMETRY_SPAN}) has no {@code D}, or no {@code F, R}, and its {@code H} is
 * known only from the probe: {@code S} alone (with {@code A} optional) is a producer side, {@code
 * P} alone a consumer side.
 *
 * <p>Supported range: the largest and the smallest instant may differ by at most {@link
 * Long#MAX_VALUE} nanoseconds (about 292 years), so that every difference fits in a {@code long};
 * {@link Builder#build()} rejects wider spans. Within that range {@link Breakdown#compute} never
 * overflows.
 *
 * <p>Instants are not required to be ordered here; {@link Breakdown#compute} clamps them.
 *
 * <p>One more instant is optional, outside the eight of {@link TimePoint}: {@code V}, when the
 * leader's last stable offset passed the record (section 9 of the latency model), set only for a
 * {@code read_committed} group reading a record written in a transaction ({@link Builder#visible});
 * it requires {@code H}. It is kept apart from {@link TimePoint} so that every consumer of the
 * eight (span attributes indexed by them, clamps, the eight-instant timelines) is unchanged for the
 * records without a transaction, which are all records but these.
 */
public final class Instants {

  private static final int COUNT = TimePoint.values().length;
  private static final TimePoint[] POINTS = TimePoint.values();

  // Indexed by TimePoint.ordinal(); an absent instant holds Long.MIN_VALUE and method UNKNOWN.
  private final long[] nanos;
  private final boolean[] present;
  private final EstimationMethod[] methods;
  // V (section 9): Long.MIN_VALUE and UNKNOWN when absent.
  private final long visibleNanos;
  private final EstimationMethod visibleMethod;

  // Takes ownership of the arrays: callers pass fresh copies.
  Instants(long[] nanos, boolean[] present, EstimationMethod[] methods) {
    this(nanos, present, methods, Long.MIN_VALUE, EstimationMethod.UNKNOWN);
  }

  // Takes ownership of the arrays: callers pass fresh copies.
  Instants(
      long[] nanos,
      boolean[] present,
      EstimationMethod[] methods,
      long visibleNanos,
      EstimationMethod visibleMethod) {
    this.nanos = nanos;
    this.present = present;
    this.methods = methods;
    this.visibleNanos = visibleNanos;
    this.visibleMethod = visibleMethod;
  }

  /**
   * Returns whether {@code V} is known: the record was written in a transaction and is read by a
   * {@code read_committed} group (section 9 of the latency model).
   *
   * @return whether {@link Builder#visible} set it
   */
  public boolean hasVisible() {
    return visibleNanos != Long.MIN_VALUE;
  }

  /**
   * Returns {@code V}, when the leader's last stable offset passed the record, in nanoseconds on
   * the common timeline.
   *
   * @return the instant, or {@link Long#MIN_VALUE} when it is absent (check {@link #hasVisible()})
   */
  public long visibleNanos() {
    return visibleNanos;
  }

  /**
   * Returns how {@code V} was obtained.
   *
   * @return its method, or {@link EstimationMethod#UNKNOWN} when it is absent
   */
  public EstimationMethod visibleMethod() {
    return visibleMethod;
  }

  /**
   * Returns a new builder with no instant set.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns an instant in nanoseconds on the common timeline.
   *
   * @param point which instant, not null
   * @return the instant, or {@link Long#MIN_VALUE} when it is absent (check {@link #has(TimePoint)}
   *     first)
   */
  public long nanos(TimePoint point) {
    return nanos[point.ordinal()];
  }

  /**
   * Returns whether an instant is known.
   *
   * @param point which instant, not null
   * @return whether it was set: always for the instants of the sides the record was seen by
   */
  public boolean has(TimePoint point) {
    return present[point.ordinal()];
  }

  /**
   * Returns how an instant was obtained.
   *
   * @param point which instant, not null
   * @return the method given to the builder, its default, or {@link EstimationMethod#UNKNOWN} when
   *     the instant is absent
   */
  public EstimationMethod method(TimePoint point) {
    return methods[point.ordinal()];
  }

  long[] copyOfNanos() {
    return nanos.clone();
  }

  boolean[] copyOfPresent() {
    return present.clone();
  }

  EstimationMethod[] copyOfMethods() {
    return methods.clone();
  }

  /**
   * Two {@code Instants} are equal when the same instants are present with the same values and the
   * same methods.
   *
   * @param o the object to compare with
   * @return whether {@code o} is equal to this
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Instants)) {
      return false;
    }
    Instants that = (Instants) o;
    return Arrays.equals(nanos, that.nanos)
        && Arrays.equals(present, that.present)
        && Arrays.equals(methods, that.methods)
        && visibleNanos == that.visibleNanos
        && visibleMethod == that.visibleMethod;
  }

  /**
   * Returns a hash code consistent with {@link #equals(Object)}.
   *
   * @return the hash code
   */
  @Override
  public int hashCode() {
    int hash =
        31 * (31 * Arrays.hashCode(nanos) + Arrays.hashCode(present)) + Arrays.hashCode(methods);
    return hasVisible() ? 31 * hash + Long.hashCode(visibleNanos) + visibleMethod.hashCode() : hash;
  }

  /**
   * Returns {@code S} in nanoseconds and every other instant relative to it, with its method when
   * it is not {@link EstimationMethod#MEASURED}, for example {@code Instants{S=1700000000000000000,
   * D=S+1200, A=S+5300, L=?, H=S+4100(fetch-response-bound), F=S+3900, R=S+4500, P=S+4700}}, and
   * {@code V} at the end when it is known.
   *
   * @return a compact description for logs and test failures
   */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("Instants{");
    long send = nanos[TimePoint.SEND.ordinal()];
    for (TimePoint point : POINTS) {
      int i = point.ordinal();
      if (i > 0) {
        out.append(", ");
      }
      out.append(point.symbol()).append('=');
      if (!present[i]) {
        out.append('?');
        continue;
      }
      if (point == TimePoint.SEND) {
        out.append(send);
      } else {
        appendRelative(out, send, nanos[i]);
      }
      if (methods[i] != EstimationMethod.MEASURED) {
        out.append('(').append(methods[i].id()).append(')');
      }
    }
    if (hasVisible()) {
      out.append(", V=");
      appendRelative(out, send, visibleNanos);
      if (visibleMethod != EstimationMethod.MEASURED) {
        out.append('(').append(visibleMethod.id()).append(')');
      }
    }
    return out.append('}').toString();
  }

  private static void appendRelative(StringBuilder out, long send, long value) {
    long delta = value - send;
    // Outside the supported range the delta would wrap around; print the absolute value instead.
    boolean overflow = ((value ^ send) & (value ^ delta)) < 0;
    if (overflow) {
      out.append(value);
    } else {
      out.append(delta < 0 ? "S" : "S+").append(delta);
    }
  }

  /**
   * Builds {@link Instants}. Not thread-safe. Every setter returns this builder.
   *
   * <p>Default methods: {@link EstimationMethod#MEASURED} for {@code S, D, A, F, R, P}, because the
   * agent takes them itself; {@link EstimationMethod#UNKNOWN} for {@code L} and {@code H}, because
   * a broker instant without a stated method cannot be trusted. An absent instant always has method
   * {@link EstimationMethod#UNKNOWN}, whatever was set.
   */
  public static final class Builder {
    private final long[] nanos = new long[COUNT];
    private final boolean[] present = new boolean[COUNT];
    private final EstimationMethod[] methods = new EstimationMethod[COUNT];
    private boolean visible;
    private long visibleNanos;
    private EstimationMethod visibleMethod;

    private Builder() {}

    /**
     * Sets {@code V}, when the leader's last stable offset passed the record (section 9 of the
     * latency model), and how it was obtained. Only for a {@code read_committed} group reading a
     * record written in a transaction; requires {@code H}. Optional.
     *
     * @param nanos nanoseconds on the common timeline
     * @param method how {@code V} was obtained, not null
     * @return this builder
     * @throws NullPointerException if {@code method} is null
     */
    public Builder visible(long nanos, EstimationMethod method) {
      if (method == null) {
        throw new NullPointerException("method of V is null");
      }
      this.visible = true;
      this.visibleNanos = nanos;
      this.visibleMethod = method;
      return this;
    }

    /**
     * Sets an instant, keeping the method already given for it or its default.
     *
     * @param point which instant, not null
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     * @throws NullPointerException if {@code point} is null
     */
    public Builder set(TimePoint point, long nanos) {
      int i = point.ordinal();
      this.nanos[i] = nanos;
      this.present[i] = true;
      return this;
    }

    /**
     * Sets an instant and how it was obtained.
     *
     * @param point which instant, not null
     * @param nanos nanoseconds on the common timeline
     * @param method how the instant was obtained, not null
     * @return this builder
     * @throws NullPointerException if {@code point} or {@code method} is null
     */
    public Builder set(TimePoint point, long nanos, EstimationMethod method) {
      method(point, method);
      return set(point, nanos);
    }

    /**
     * Sets how an instant was obtained, without setting its value.
     *
     * @param point which instant, not null
     * @param method how the instant was obtained, not null
     * @return this builder
     * @throws NullPointerException if {@code point} or {@code method} is null
     */
    public Builder method(TimePoint point, EstimationMethod method) {
      if (method == null) {
        throw new NullPointerException("method of " + point.symbol() + " is null");
      }
      methods[point.ordinal()] = method;
      return this;
    }

    /**
     * Sets {@code S}, {@link TimePoint#SEND}. Required with its side.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder send(long nanos) {
      return set(TimePoint.SEND, nanos);
    }

    /**
     * Sets {@code D}, {@link TimePoint#DRAIN}. Required with its side.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder drain(long nanos) {
      return set(TimePoint.DRAIN, nanos);
    }

    /**
     * Sets {@code A}, {@link TimePoint#ACK}. Optional.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder ack(long nanos) {
      return set(TimePoint.ACK, nanos);
    }

    /**
     * Sets {@code L}, {@link TimePoint#APPEND}, keeping the method already given for it (default
     * {@link EstimationMethod#UNKNOWN}). Optional.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder append(long nanos) {
      return set(TimePoint.APPEND, nanos);
    }

    /**
     * Sets {@code L}, {@link TimePoint#APPEND}, and how it was obtained. Optional.
     *
     * @param nanos nanoseconds on the common timeline
     * @param method how {@code L} was obtained, not null
     * @return this builder
     * @throws NullPointerException if {@code method} is null
     */
    public Builder append(long nanos, EstimationMethod method) {
      return set(TimePoint.APPEND, nanos, method);
    }

    /**
     * Sets {@code H}, {@link TimePoint#COMMIT}, keeping the method already given for it (default
     * {@link EstimationMethod#UNKNOWN}). Required with a consumer side.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder commit(long nanos) {
      return set(TimePoint.COMMIT, nanos);
    }

    /**
     * Sets {@code H}, {@link TimePoint#COMMIT}, and how it was obtained. Required with a consumer
     * side.
     *
     * @param nanos nanoseconds on the common timeline
     * @param method how {@code H} was obtained, not null
     * @return this builder
     * @throws NullPointerException if {@code method} is null
     */
    public Builder commit(long nanos, EstimationMethod method) {
      return set(TimePoint.COMMIT, nanos, method);
    }

    /**
     * Sets {@code F}, {@link TimePoint#FETCH_REQUEST}. Required with its side.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder fetchRequest(long nanos) {
      return set(TimePoint.FETCH_REQUEST, nanos);
    }

    /**
     * Sets {@code R}, {@link TimePoint#FETCH_RESPONSE}. Required with its side.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder fetchResponse(long nanos) {
      return set(TimePoint.FETCH_RESPONSE, nanos);
    }

    /**
     * Sets {@code P}, {@link TimePoint#POLL}. Required with its side.
     *
     * @param nanos nanoseconds on the common timeline
     * @return this builder
     */
    public Builder poll(long nanos) {
      return set(TimePoint.POLL, nanos);
    }

    /**
     * Builds the instants. The builder can be reused afterwards.
     *
     * @return new immutable instants
     * @throws IllegalArgumentException if a required instant is missing (see the class
     *     documentation; the message names every missing instant, for example {@code "missing
     *     instants: D (DRAIN), H (COMMIT)"}), or if the largest and smallest instant differ by more
     *     than {@link Long#MAX_VALUE}
     */
    public Instants build() {
      long[] values = nanos.clone();
      boolean[] known = present.clone();
      EstimationMethod[] resolved = new EstimationMethod[COUNT];
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      StringBuilder missing = null;
      boolean producerSide = known[TimePoint.DRAIN.ordinal()] || known[TimePoint.ACK.ordinal()];
      boolean consumerSide =
          known[TimePoint.FETCH_REQUEST.ordinal()]
              || known[TimePoint.FETCH_RESPONSE.ordinal()]
              || known[TimePoint.POLL.ordinal()];
      // Section 10: an instrumentation's span gives S without D, or P without F, R (and H only
      // from the probe).
      boolean sendFromSpan =
          known[TimePoint.SEND.ordinal()]
              && methods[TimePoint.SEND.ordinal()] == EstimationMethod.OPENTELEMETRY_SPAN;
      boolean pollFromSpan =
          known[TimePoint.POLL.ordinal()]
              && methods[TimePoint.POLL.ordinal()] == EstimationMethod.OPENTELEMETRY_SPAN;
      producerSide |= sendFromSpan;
      for (TimePoint point : POINTS) {
        int i = point.ordinal();
        if (!known[i]) {
          boolean excused =
              sendFromSpan && point == TimePoint.DRAIN
                  || pollFromSpan
                      && (point == TimePoint.FETCH_REQUEST
                          || point == TimePoint.FETCH_RESPONSE
                          || point == TimePoint.COMMIT);
          if (!excused && isRequired(point, producerSide, consumerSide)) {
            missing = missing == null ? new StringBuilder() : missing.append(", ");
            missing.append(point.symbol()).append(" (").append(point).append(')');
          }
          values[i] = Long.MIN_VALUE;
          resolved[i] = EstimationMethod.UNKNOWN;
          continue;
        }
        resolved[i] = methods[i] != null ? methods[i] : defaultMethod(point);
        min = Math.min(min, values[i]);
        max = Math.max(max, values[i]);
      }
      if (missing != null) {
        throw new IllegalArgumentException("missing instants: " + missing);
      }
      if (visible) {
        if (!known[TimePoint.COMMIT.ordinal()]) {
          throw new IllegalArgumentException("V (visible) without H (COMMIT)");
        }
        min = Math.min(min, visibleNanos);
        max = Math.max(max, visibleNanos);
      }
      // max >= min, so the true difference is in [0, 2^64); it wraps negative exactly when it
      // does not fit in a long.
      if (max - min < 0) {
        throw new IllegalArgumentException(
            "instants span more than Long.MAX_VALUE nanoseconds: min=" + min + ", max=" + max);
      }
      return visible
          ? new Instants(values, known, resolved, visibleNanos, visibleMethod)
          : new Instants(values, known, resolved);
    }

    // Without either side every instant of the full shape is missing, as the message says.
    private static boolean isRequired(TimePoint point, boolean producerSide, boolean consumerSide) {
      if (point == TimePoint.ACK || point == TimePoint.APPEND) {
        return false;
      }
      if (!producerSide && !consumerSide) {
        return true;
      }
      // H is required with a consumer: the record was read, so it was committed.
      return point.observer() == TimePoint.Observer.PRODUCER ? producerSide : consumerSide;
    }

    private static EstimationMethod defaultMethod(TimePoint point) {
      return point.observer() == TimePoint.Observer.BROKER
          ? EstimationMethod.UNKNOWN
          : EstimationMethod.MEASURED;
    }
  }
}
