package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.micrometer.MicrometerTimer;
import dev.klat.model.MetricDef;
import java.util.function.Function;

/**
 * What a batch's acknowledgement records: every record's producer latency ({@code A - S}) and
 * produce latency ({@code D - S}) into the topic's histograms (and their Micrometer timers), or its
 * failure. Called by {@link ProducerHooks#onCompletionStart} on the producer's network thread.
 */
final class BatchLatencies {

  private BatchLatencies() {}

  // A failed record is an error, not a latency: an expired batch would otherwise show up as a
  // delivery.timeout.ms-long "latency".
  static void record(BatchTiming timing, long ackNanos, Object recordExceptions) {
    TopicInstruments instruments = timing.instruments;
    int records = timing.appended;
    if (recordExceptions == null) {
      countClamped(
          instruments.producerLatency.recordAll(ackNanos, timing.sendNanos, 0, records), "A");
      if (timing.drains > 0) {
        countClamped(
            instruments.produceLatency.recordAll(
                timing.lastDrainNanos, timing.sendNanos, 0, records),
            "D");
      }
      MicrometerTimer producerTimer = instruments.producerLatencyTimer;
      if (producerTimer != null) {
        producerTimer.recordAll(ackNanos, timing.sendNanos, 0, records);
        if (timing.drains > 0) {
          instruments.produceLatencyTimer.recordAll(
              timing.lastDrainNanos, timing.sendNanos, 0, records);
        }
      }
    } else if (recordExceptions instanceof Exception) {
      instruments.countFailure((Exception) recordExceptions, records);
    } else if (recordExceptions instanceof Function) {
      @SuppressWarnings("unchecked")
      Function<Integer, ? extends Exception> exceptionOf =
          (Function<Integer, ? extends Exception>) recordExceptions;
      for (int i = 0; i < records; i++) {
        Exception failure = exceptionOf.apply(i);
        if (failure != null) {
          instruments.countFailure(failure, 1);
        } else {
          countClamped(
              instruments.producerLatency.recordAll(ackNanos, timing.sendNanos, i, i + 1), "A");
          if (timing.drains > 0) {
            countClamped(
                instruments.produceLatency.recordAll(
                    timing.lastDrainNanos, timing.sendNanos, i, i + 1),
                "D");
          }
          MicrometerTimer producerTimer = instruments.producerLatencyTimer;
          if (producerTimer != null) {
            producerTimer.recordAll(ackNanos, timing.sendNanos, i, i + 1);
            if (timing.drains > 0) {
              instruments.produceLatencyTimer.recordAll(
                  timing.lastDrainNanos, timing.sendNanos, i, i + 1);
            }
          }
        }
      }
    }
  }

  private static void countClamped(int clamped, String endInstant) {
    if (clamped > 0) {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        runtime.metrics().counter(MetricDef.AGENT_DURATIONS_CLAMPED, endInstant).add(clamped);
      }
    }
  }
}
