package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.agent.micrometer.MicrometerTimer;
import dev.klat.model.MetricDef;
import java.util.function.Function;

/**
 * What a batch's acknowledgement records: every record's producer latency ({@code A - S}) and
 * produce latency ({@code D - S}) into the topic's histograms (and their Micrometer timers), or its
 * failure, and flags its tail records. Called by {@link ProducerHooks#onCompletionStart} on the
 * producer's network thread.
 */
final class BatchLatencies {

  private BatchLatencies() {}

  // A failed record is an error, not a latency: an expired batch would otherwise show up as a
  // delivery.timeout.ms-long "latency".
  static void record(BatchTiming timing, long ackNanos, Object recordExceptions) {
    TopicInstruments instruments = timing.instruments;
    int records = timing.appended;
    if (recordExceptions == null) {
      recordLatencies(timing, instruments, ackNanos, 0, records);
      // One comparison per batch: the earliest S gives the batch's largest A - S. A threshold of
      // Long.MAX_VALUE (tail capture off, auto without enough records yet) is never exceeded.
      long thresholdNanos = instruments.tailThreshold.thresholdNanos();
      if (ackNanos - timing.earliestSendNanos > thresholdNanos) {
        flagTail(timing, instruments, ackNanos, thresholdNanos);
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
          recordLatencies(timing, instruments, ackNanos, i, i + 1);
        }
      }
    }
  }

  /**
   * The records of a successful batch whose {@code A - S} is above the threshold, but those that
   * were sampled (they have their span): counted, and kept by the producer's fair cap for their
   * tail spans, which {@link ProducerHooks#onCompletionEnd} builds. A batch without an offset
   * ({@code acks=0}) has no record identity to give a tail span, and is not flagged.
   */
  static void flagTail(
      BatchTiming timing, TopicInstruments instruments, long ackNanos, long thresholdNanos) {
    if (timing.baseOffset < 0 || instruments.tailAdmission == null) {
      return;
    }
    int flagged = 0;
    int records = timing.appended;
    for (int i = 0; i < records; i++) {
      long sendNanos = timing.sendNanosAt(i);
      if (ackNanos - sendNanos <= thresholdNanos) {
        continue;
      }
      if (timing.sampledCount > 0 && timing.sampledAt(i) != null) {
        continue;
      }
      flagged++;
      if (instruments.tailAdmission.admit(ackNanos)) {
        timing.addTail(i, sendNanos);
      }
    }
    if (flagged > 0) {
      instruments.tailFlagged.add(flagged);
      timing.tailThresholdNanos = thresholdNanos;
    }
  }

  // Records [from, to) of the batch: A - S into the producer latency, D - S into the produce
  // latency (once drained), in the histograms and, when enabled, the Micrometer timers.
  private static void recordLatencies(
      BatchTiming timing, TopicInstruments instruments, long ackNanos, int from, int to) {
    countClamped(recordDurations(instruments.producerLatency, ackNanos, timing, from, to), "A");
    if (timing.drains > 0) {
      countClamped(
          recordDurations(instruments.produceLatency, timing.lastDrainNanos, timing, from, to),
          "D");
    }
    MicrometerTimer producerTimer = instruments.producerLatencyTimer;
    if (producerTimer != null) {
      recordDurations(producerTimer, ackNanos, timing, from, to);
      if (timing.drains > 0) {
        recordDurations(instruments.produceLatencyTimer, timing.lastDrainNanos, timing, from, to);
      }
    }
  }

  private static int recordDurations(
      LatencyHistogram histogram, long endNanos, BatchTiming timing, int from, int to) {
    long[] wide = timing.wideSendNanos;
    if (wide != null) {
      return histogram.recordAll(endNanos, wide, from, to);
    }
    return histogram.recordAll(endNanos - timing.firstSendNanos, timing.sendOffsets, from, to);
  }

  // Micrometer's Timer takes one duration per call: there is no batch form to save on.
  private static void recordDurations(
      MicrometerTimer timer, long endNanos, BatchTiming timing, int from, int to) {
    for (int i = from; i < to; i++) {
      timer.recordNanos(endNanos - timing.sendNanosAt(i));
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
