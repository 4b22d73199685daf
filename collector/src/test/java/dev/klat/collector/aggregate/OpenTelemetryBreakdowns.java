package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.TimePoint;
import java.util.Set;

/**
 * Breakdowns of records seen through an OpenTelemetry instrumentation (section 10 of the latency
 * model), built as the join builds them: {@code S} (and {@code A}) from a producer span, {@code P}
 * from a consumer span, {@code L} and {@code H} from the broker probe.
 */
public final class OpenTelemetryBreakdowns {
  public static final long MS = 1_000_000L;
  public static final long T0 = 1_800_000_000_000L * MS;
  private static final EstimationMethod SPAN = EstimationMethod.OPENTELEMETRY_SPAN;
  private static final EstimationMethod PROBE = EstimationMethod.BROKER_PROBE;

  private OpenTelemetryBreakdowns() {}

  /**
   * Both sides instrumented: produce+publish {@code L - S}, commit {@code H - L}, catch-up+fetch
   * {@code P - H}, in milliseconds.
   */
  public static JoinedBreakdown bothInstrumented(
      String topic,
      String group,
      long offset,
      double producePublishMs,
      double commitMs,
      double catchUpFetchMs) {
    long l = T0 + ms(producePublishMs);
    long h = l + ms(commitMs);
    Instants i =
        Instants.builder()
            .send(T0)
            .method(TimePoint.SEND, SPAN)
            .ack(h + MS)
            .method(TimePoint.ACK, SPAN)
            .append(l, PROBE)
            .commit(h, PROBE)
            .poll(h + ms(catchUpFetchMs))
            .method(TimePoint.POLL, SPAN)
            .build();
    return joined(topic, group, offset, i);
  }

  /** klat's agent on the producer (produce 2 ms, publish 1 ms), an instrumented consumer. */
  public static JoinedBreakdown klatProducerInstrumentedConsumer(
      String topic, String group, long offset, double commitMs, double catchUpFetchMs) {
    long d = T0 + 2 * MS;
    long l = d + MS;
    long h = l + ms(commitMs);
    Instants i =
        Instants.builder()
            .send(T0)
            .drain(d)
            .append(l, PROBE)
            .commit(h, PROBE)
            .poll(h + ms(catchUpFetchMs))
            .method(TimePoint.POLL, SPAN)
            .build();
    return joined(topic, group, offset, i);
  }

  /** A sampled record of klat's agents, as {@code RecentBreakdownsTest} builds it, group "g". */
  public static JoinedBreakdown sampled(String topic, long produceNanos, long e2eNanos) {
    return RecentBreakdownsTest.breakdown(topic, produceNanos, e2eNanos);
  }

  private static long ms(double ms) {
    return Math.round(ms * MS);
  }

  private static JoinedBreakdown joined(String topic, String group, long offset, Instants i) {
    return new JoinedBreakdown(
        new RecordKey(topic, 0, offset),
        group,
        0x0af7651916cd43ddL,
        0x8448eb211c80319cL + offset,
        0x11 + offset,
        0x22 + offset,
        Breakdown.compute(i),
        new ClockOffset("producer", "consumer", 0, 0, 0, 0),
        new ClockOffset("producer", "broker", 0, 0, 0, 0),
        Set.of(),
        false,
        1,
        -1,
        -1,
        -1,
        ProducerEvidence.UNKNOWN,
        ConsumerEvidence.UNKNOWN,
        Capture.OPENTELEMETRY);
  }
}
