package dev.klat.collector.aggregate;

import dev.klat.model.Breakdown;
import dev.klat.model.Instants;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TimePoint;

/**
 * The combined segments a record seen through an OpenTelemetry instrumentation has where the
 * instants between them are unknown (section 10 of the latency model): {@code produce+publish}
 * {@code L - S} without {@code D}, {@code catch-up+fetch} {@code P - H} ({@code P - V}) without
 * {@code F} and {@code R}. Each is reported only where its two parts are not known apart, so that a
 * record counts once towards each part of its end to end; its quality is the worse of its two
 * ends'.
 */
public enum CombinedSegment {
  /** {@code L - S}: produce and publish, for a producer without {@code D}. */
  PRODUCE_AND_PUBLISH("produce+publish"),

  /**
   * {@code P - H} ({@code P - V}): catch-up and fetch, for a consumer without {@code F}, {@code R}.
   */
  CATCH_UP_AND_FETCH("catch-up+fetch");

  private final String id;

  CombinedSegment(String id) {
    this.id = id;
  }

  /**
   * The segment label's value and the API's key: {@code "produce+publish"}, {@code
   * "catch-up+fetch"}.
   */
  public String id() {
    return id;
  }

  /** The duration, or -1 when unknown or when its parts are known apart. */
  public long nanos(Breakdown b) {
    return switch (this) {
      case PRODUCE_AND_PUBLISH ->
          b.isKnown(Segment.PRODUCE) || b.isKnown(Segment.PUBLISH)
              ? -1
              : Math.max(-1, b.produceAndPublishNanos());
      case CATCH_UP_AND_FETCH -> Math.max(-1, b.catchUpAndFetchNanos());
    };
  }

  /** The worse of its two ends' qualities; {@link Quality#NONE} when it is not known. */
  public Quality quality(Breakdown b) {
    if (nanos(b) < 0) {
      return Quality.NONE;
    }
    Instants t = b.instants();
    return switch (this) {
      case PRODUCE_AND_PUBLISH ->
          Quality.worst(t.method(TimePoint.SEND).quality(), t.method(TimePoint.APPEND).quality());
      case CATCH_UP_AND_FETCH ->
          Quality.worst(
              t.hasVisible() ? t.visibleMethod().quality() : t.method(TimePoint.COMMIT).quality(),
              t.method(TimePoint.POLL).quality());
    };
  }
}
