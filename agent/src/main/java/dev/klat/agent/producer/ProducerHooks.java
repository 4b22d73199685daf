package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.link.ThreadLinks;
import dev.klat.agent.weave.PrivateFields;
import dev.klat.agent.weave.States;
import dev.klat.model.HeaderNames;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The producer hooks' logic, called from the advice that {@link ProducerInstrumentation} weaves
 * into kafka-clients. Every method here is reached from inside the application's calls, so each
 * catches everything: a failure of the agent costs the agent its measurement, never the application
 * its record.
 *
 * <p>Public only because woven code in kafka-clients' packages calls it.
 */
public final class ProducerHooks {

  private ProducerHooks() {}

  /**
   * At {@code KafkaProducer.send(record, callback)} entry: takes S for the append that follows and
   * returns the record to send: the application's own, or for a sampled record a copy with klat's
   * headers. The application's callback is left as it is.
   */
  @SuppressWarnings("rawtypes")
  public static ProducerRecord onSend(Object producer, ProducerRecord record) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime == null || record == null) {
      return record;
    }
    long sendNanos = runtime.time.nanoTime();
    try {
      SendContext context = SendContext.current();
      context.pending = false;
      if (context.sampled != null) {
        context.sampled = null;
      }
      ProducerState state = producerState(runtime, producer);
      TopicInstruments instruments = state.instruments(record.topic());
      if (instruments == null) {
        return record;
      }
      context.sendNanos = sendNanos;
      // Stored only when it changes: a reference stored into this long-lived object costs a GC
      // write barrier that a repeated store of the same topic's instruments need not pay.
      if (context.instruments != instruments) {
        context.instruments = instruments;
      }
      context.pending = true;
      // A thread that took sampled consumed records since its last send (or sent one linked to
      // some) links this record to them: two int reads for every other record.
      ThreadLinks links = context.links;
      if (links.takenCount != 0 || links.previousCount != 0) {
        ProducerRecord<?, ?> linked =
            SendSampling.sendLinked(runtime, context, state, record, sendNanos);
        if (linked != null) {
          return linked;
        }
      }
      // Almost every record ends here: no traceparent to follow and not the one the probability
      // draw picked. The rare rest is in SendSampling, which keeps this hook, run for every
      // record, short.
      Header traceparent = record.headers().lastHeader(HeaderNames.TRACEPARENT);
      if (traceparent == null) {
        long before = context.recordsBeforeNextDraw;
        if (before > 0 && context.gapRuntime == runtime) {
          context.recordsBeforeNextDraw = before - 1;
          return record;
        }
        if (!SendSampling.drawPicks(runtime, context)) {
          return record;
        }
      }
      RecordTracker sampled =
          SendSampling.maybeSample(runtime, state, record, sendNanos, traceparent);
      if (sampled == null) {
        // Not sampled: a timing header copied from the input must not travel on.
        return traceparent != null ? SendSampling.unsampled(runtime, record) : record;
      }
      context.sampled = sampled;
      ProducerRecord<?, ?> toSend = sampled.takeRecord();
      return toSend != null ? toSend : record;
    } catch (Throwable t) {
      warn("producer-send", t);
      return record;
    }
  }

  /**
   * At each return of {@code KafkaProducer.send}: a record that failed before it reached a batch
   * (too large, no metadata in time, serialization) is counted here, since no batch will complete
   * it.
   */
  public static void onSendReturn(Object future) {
    // The common case, a record that reached its batch, costs one comparison.
    if (future == null || future.getClass() == appendedFutureClass) {
      return;
    }
    try {
      SendContext context = SendContext.current();
      RecordTracker sampled = context.sampled;
      context.sampled = null;
      if (!context.pending) {
        return;
      }
      context.pending = false;
      TopicInstruments instruments = context.instruments;
      Future<?> returned = (Future<?>) future;
      if (returned.isDone()) {
        try {
          returned.get();
        } catch (ExecutionException failed) {
          Throwable cause = failed.getCause();
          instruments.countFailure(cause instanceof Exception ? (Exception) cause : failed, 1);
        }
      }
      if (sampled != null) {
        AgentRuntime runtime = AgentRuntime.get();
        if (runtime != null) {
          sampled.future = returned;
          ProducerSpans.exportFailedSend(runtime, sampled);
        }
      }
    } catch (Throwable t) {
      warn("producer-send", t);
    }
  }

  // The class of the futures of records that reached a batch (FutureRecordMetadata): one reference
  // comparison tells a record that was appended from one that failed early.
  private static volatile Class<?> appendedFutureClass;

  /**
   * At each return of {@code ProducerBatch.tryAppend}, under the accumulator's lock, on the
   * application thread inside {@code send()}: a non-null future means the record is now the batch's
   * last, and its S goes with the batch.
   */
  public static void onAppended(Object future, Object batch) {
    if (future == null) {
      return;
    }
    try {
      if (appendedFutureClass == null) {
        appendedFutureClass = future.getClass();
      }
      SendContext context = SendContext.current();
      if (context.pending) {
        context.pending = false;
        timingOf(batch).append(context.instruments, context.sendNanos);
      }
      RecordTracker sampled = context.sampled;
      if (sampled != null) {
        // Only sampled records read the clock here: the time send() blocked shows on their span.
        context.sampled = null;
        sampled.future = future instanceof Future ? (Future<?>) future : null;
        timingOf(batch).addSampled(sampled);
        AgentRuntime runtime = AgentRuntime.get();
        if (runtime != null) {
          sampled.appendedNanos = runtime.time.nanoTime();
        }
      }
    } catch (Throwable t) {
      warn("producer-append", t);
    }
  }

  /**
   * Whether the metadata wait hook runs in this JVM: it runs on every {@code send()}, so the first
   * send sets it. Spans carry the metadata wait only then, so that a kafka-clients where the hook
   * was skipped leaves the append wait unsplit instead of reporting no metadata wait. Plain, not
   * volatile: it only ever goes from false to true, and a span that misses the write is a span
   * without the split.
   */
  static boolean metadataWaitHooked;

  /**
   * At each return of the constructor of {@code KafkaProducer.ClusterAndWaitTime}, which {@code
   * waitOnMetadata} builds on every {@code send()} (and {@code partitionsFor}) before the append:
   * the time it waited for the topic's metadata, as Kafka measured it, in whole milliseconds. With
   * the metadata cached it is 0 and this costs a comparison and a read; no clock is read here.
   */
  public static void onMetadataWaited(long waitedMs) {
    if (waitedMs == 0) {
      if (!metadataWaitHooked) {
        metadataWaitHooked = true;
      }
      return;
    }
    // Apart, so that what the JIT inlines into every send() stays the few bytes above.
    metadataWaited(waitedMs);
  }

  private static void metadataWaited(long waitedMs) {
    try {
      metadataWaitHooked = true;
      SendContext context = SendContext.current();
      RecordTracker sampled = context.sampled;
      // Pending: inside send(), between its S and its append; partitionsFor() is not.
      if (sampled != null && context.pending) {
        sampled.metadataWaitMs = waitedMs;
      }
    } catch (Throwable t) {
      warn("producer-metadata", t);
    }
  }

  private static ProducerState producerState(AgentRuntime runtime, Object producer) {
    Object state = States.get(producer);
    if (state instanceof ProducerState) {
      return (ProducerState) state;
    }
    return createProducerState(runtime, producer);
  }

  private static ProducerState createProducerState(AgentRuntime runtime, Object producer) {
    // Read here, once per producer, rather than passed by the woven send(): every byte the advice
    // adds counts, since the JIT inlines send() into the application's loop only while it stays
    // within 35 bytes of bytecode (measured: passing the three fields made it 45 bytes, and the
    // application's loop called it instead).
    Object clientId = PrivateFields.read(producer, "clientId");
    // Two threads may race to create it; both states work and the last one written wins.
    ProducerState created =
        new ProducerState(
            runtime,
            clientId instanceof String ? (String) clientId : null,
            PrivateFields.read(producer, "producerConfig"),
            PrivateFields.read(producer, "apiVersions"),
            runtime.micrometer(producer));
    States.set(producer, created);
    return created;
  }

  /** At {@code ProducerBatch.drained(long)} exit, on the producer's network thread: takes D. */
  public static void onDrained(Object batch) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        timingOf(batch).drained(runtime.time.nanoTime());
      }
    } catch (Throwable t) {
      warn("producer-drain", t);
    }
  }

  /**
   * At {@code Sender.sendProduceRequest} entry, on the producer's network thread: the broker the
   * drained batches go to, how many share the request, and, for a request that carries a sampled
   * record, how many requests were already in flight to that broker (a lookup by node id that
   * unsampled requests skip).
   */
  public static void onProduceRequest(int destinationNodeId, List<?> batches, Object client) {
    try {
      int batchCount = batches.size();
      int inFlightBefore = -1;
      for (int i = 0; i < batchCount; i++) {
        BatchTiming timing = timingOf(batches.get(i));
        timing.leaderNodeId = destinationNodeId;
        timing.requestBatches = batchCount;
        // Only a request carrying a sampled record reads the in-flight count.
        if (timing.sampledCount > 0) {
          if (inFlightBefore < 0 && client instanceof KafkaClient) {
            inFlightBefore =
                ((KafkaClient) client).inFlightRequestCount(Integer.toString(destinationNodeId));
          }
          timing.requestInFlightBefore = inFlightBefore;
        }
      }
    } catch (Throwable t) {
      warn("producer-request", t);
    }
  }

  /**
   * At {@code ProducerBatch.completeFutureAndFireCallbacks} entry: takes A, once for the whole
   * batch, records every record's latencies (or failures) and flags its tail records. {@code
   * baseOffset} is the offset of the batch's first record (-1 when unknown, {@code acks=0}); {@code
   * recordExceptions} is null on success, else a {@code RuntimeException} (2.8) or a {@code
   * Function<Integer, RuntimeException>} from a record's index (3.0 on).
   */
  public static void onCompletionStart(
      Object batch, long baseOffset, long logAppendTime, Object recordExceptions, int recordCount) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime == null) {
        return;
      }
      long ackNanos = runtime.time.nanoTime();
      Object state = States.get(batch);
      if (!(state instanceof BatchTiming)) {
        return;
      }
      BatchTiming timing = (BatchTiming) state;
      timing.ackNanos = ackNanos;
      timing.baseOffset = baseOffset;
      timing.logAppendTime = logAppendTime;
      timing.completedRecordCount = recordCount;
      if (timing.instruments != null && timing.appended > 0) {
        BatchLatencies.record(timing, ackNanos, recordExceptions);
        timing.releaseSendTimes();
      }
    } catch (Throwable t) {
      warn("producer-completion", t);
    }
  }

  /**
   * At each normal return of {@code ProducerBatch.completeFutureAndFireCallbacks}, when every
   * record's future is done and the application's callbacks have run: exports the spans of the
   * batch's sampled records and of its tail records, outside the accumulator's lock.
   */
  public static void onCompletionEnd(Object batch) {
    try {
      Object state = States.get(batch);
      if (!(state instanceof BatchTiming)) {
        return;
      }
      BatchTiming timing = (BatchTiming) state;
      if (timing.sampledCount == 0 && timing.tailCount == 0) {
        return;
      }
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        if (timing.sampledCount > 0) {
          ProducerSpans.exportBatch(runtime, batch, timing);
        }
        if (timing.tailCount > 0) {
          ProducerSpans.exportTail(runtime, batch, timing);
        }
      }
      timing.clearSampled();
      timing.clearTail();
    } catch (Throwable t) {
      warn("producer-completion", t);
    }
  }

  static BatchTiming timingOf(Object batch) {
    Object state = States.get(batch);
    if (state instanceof BatchTiming) {
      return (BatchTiming) state;
    }
    BatchTiming timing = new BatchTiming();
    States.set(batch, timing);
    return timing;
  }

  static void warn(String key, Throwable t) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime != null) {
      runtime.log.warnThrottled(key, "klat hook " + key + " failed: " + t);
    }
  }
}
