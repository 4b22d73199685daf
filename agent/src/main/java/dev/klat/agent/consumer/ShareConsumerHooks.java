package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.metrics.Counter;
import dev.klat.agent.metrics.Gauge;
import dev.klat.agent.weave.States;
import dev.klat.model.HeaderNames;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TimingHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.internals.Acknowledgements;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.requests.ShareFetchRequest;

/**
 * The share consumer hooks' logic ({@code KafkaShareConsumer}, kafka-clients 4.1 to 4.4), called
 * from the advice {@link ShareConsumerInstrumentation} weaves. Each method is one advice's whole
 * body, catches everything and returns nothing: a failure costs the agent its measurement, never
 * the application its records.
 *
 * <p>How a delivery gets its instants (section 11 of the latency model): the ShareFetch request's
 * data is stamped with {@code F} when the session handler builds it, on the network thread; the
 * response handler takes {@code R} and publishes both, with its request manager, to that thread
 * ({@link ShareHandlerContext}); each {@code ShareCompletedFetch} built there keeps them ({@link
 * ShareFetchStamp}); {@code parseRecord} builds each record of a delivery on the polling thread,
 * noted in {@link SharePollContext}; at {@code poll()} exit every noted record gets {@code P}, its
 * histograms, and, when sampled, a span that waits in {@link ShareDeliveries} for its
 * acknowledgement: {@code K} and the type from the application's {@code acknowledge} call (or the
 * next {@code poll()} or commit, in implicit mode), the broker's answer from the request manager's
 * completed acknowledgements, on the network thread.
 *
 * <p>Public only because woven code in kafka-clients' packages calls it.
 */
public final class ShareConsumerHooks {

  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final long NO_START = Long.MIN_VALUE;

  /** Attributes a share delivery's span adds to the consumer span's. */
  static final int SHARE_ATTRIBUTES = 6;

  /** How many of them are strings. */
  static final int SHARE_STRING_ATTRIBUTES = 3;

  private ShareConsumerHooks() {}

  /**
   * At {@code KafkaShareConsumer.poll} entry: forgets records a previous poll built but threw, and,
   * in implicit mode, takes {@code K} of the last poll's deliveries: this call accepts them.
   */
  public static void onPollEnter(Object shareConsumer) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime == null) {
        return;
      }
      SharePollContext context = SharePollContext.get();
      context.clear();
      context.polling = true;
      acceptImplicitly(runtime, shareConsumer);
    } catch (Throwable t) {
      warn("share-consumer-poll", t);
    }
  }

  /** At {@code commitSync} and {@code commitAsync} entry: in implicit mode, they accept too. */
  public static void onCommit(Object shareConsumer) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        acceptImplicitly(runtime, shareConsumer);
      }
    } catch (Throwable t) {
      warn("share-consumer-commit", t);
    }
  }

  private static void acceptImplicitly(AgentRuntime runtime, Object shareConsumer) {
    Object state = States.get(shareConsumer);
    if (state instanceof ShareConsumerState) {
      ShareConsumerState share = (ShareConsumerState) state;
      if (share.implicitAcknowledgement && !share.deliveries.isEmpty()) {
        share.deliveries.acceptAllUnacknowledged(runtime.time.epochNanos());
      }
    }
  }

  /**
   * At each normal return of {@code KafkaShareConsumer.poll}: reports every delivery the poll
   * built. As for a {@code KafkaConsumer}, {@code P} is taken after the costly first pass (headers,
   * spans of sampled records), so that it is when {@code poll()} returns to the application.
   */
  public static void onPollReturn(Object returned, Object shareConsumer) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime == null) {
      return;
    }
    SharePollContext context = null;
    try {
      context = SharePollContext.get();
      if (!context.polling) {
        return;
      }
      context.polling = false;
      ShareConsumerState state = shareState(runtime, shareConsumer);
      if (!state.supported) {
        runtime.log.warnOnce(
            "share-consumer-version",
            "kafka-clients "
                + state.clientVersion
                + ": its KafkaShareConsumer is not instrumented (klat reads share consumers of"
                + " 4.1 and later); its other clients are");
        return;
      }
      report(runtime, state, context);
      state.deliveries.sweep();
    } catch (Throwable t) {
      warn("share-consumer-poll", t);
    } finally {
      if (context != null) {
        context.clear();
      }
    }
  }

  private static void report(
      AgentRuntime runtime, ShareConsumerState state, SharePollContext context) {
    List<ConsumerRecord<?, ?>> records = context.records;
    int count = records.size();
    if (count == 0) {
      return;
    }
    ConsumerState consumer = state.consumer;
    long[] starts = context.starts(count);
    List<ShareDeliveries.Delivery> sampled = null;
    TimingHeader.Decoded decoded = null;
    long[] traceContext = null;
    // First pass: where each end to end starts, and the spans of sampled deliveries.
    for (int i = 0; i < count; i++) {
      ConsumerRecord<?, ?> record = records.get(i);
      starts[i] = NO_START;
      if (consumer.instruments(record.topic()) == null) {
        // A topic klat.topics excludes: not measured, no span.
        continue;
      }
      Header timing = record.headers().lastHeader(HeaderNames.TIMING);
      if (timing != null) {
        if (decoded == null) {
          decoded = new TimingHeader.Decoded();
          traceContext = new long[TimingHeaderReader.TRACE_CONTEXT_LENGTH];
        }
        traceContext[TimingHeaderReader.SPAN_WANTED] = 0L;
        long sendEpochMicros =
            TimingHeaderReader.check(runtime, consumer, decoded, record, timing, traceContext);
        if (sendEpochMicros > 0L) {
          starts[i] = sendEpochMicros * 1000L;
          if (traceContext[TimingHeaderReader.SPAN_WANTED] != 0L) {
            if (sampled == null) {
              sampled = new ArrayList<ShareDeliveries.Delivery>(4);
            }
            sampled.add(
                delivery(
                    runtime,
                    consumer,
                    record,
                    context.stamps.get(i),
                    traceContext,
                    sendEpochMicros));
          }
        }
      }
      if (starts[i] == NO_START && record.timestampType() == TimestampType.CREATE_TIME) {
        long timestamp = record.timestamp();
        if (timestamp >= 0L) {
          starts[i] = timestamp * NANOS_PER_MILLI;
        }
      }
    }
    long pollNanos = runtime.time.nanoTime();
    long pollEpochNanos = runtime.time.epochNanosAt(pollNanos);
    // Second pass: the every-record histograms, the redeliveries and the lag.
    for (int i = 0; i < count; i++) {
      ConsumerRecord<?, ?> record = records.get(i);
      ConsumerTopicInstruments instruments = consumer.instruments(record.topic());
      if (instruments == null) {
        continue;
      }
      ShareFetchStamp stamp = context.stamps.get(i);
      if (stamp != null) {
        FetchStamp fetch = stamp.fetch;
        if (fetch.requestNanos != 0L) {
          long fetchNanos = fetch.responseNanos - fetch.requestNanos;
          PollReport.record(consumer.clampedAtResponse, instruments.fetchLatency, fetchNanos, 1);
          if (instruments.fetchLatencyTimer != null) {
            instruments.fetchLatencyTimer.recordNanos(fetchNanos, 1);
          }
        }
        long bufferNanos = pollNanos - fetch.responseNanos;
        PollReport.record(consumer.clampedAtPoll, instruments.bufferLatency, bufferNanos, 1);
        if (instruments.bufferLatencyTimer != null) {
          instruments.bufferLatencyTimer.recordNanos(bufferNanos, 1);
        }
      }
      if (starts[i] != NO_START) {
        long e2eNanos = pollEpochNanos - starts[i];
        PollReport.record(consumer.clampedAtPoll, instruments.e2eLatency, e2eNanos, 1);
        if (instruments.e2eLatencyTimer != null && e2eNanos >= 0L) {
          instruments.e2eLatencyTimer.recordNanos(e2eNanos, 1);
        }
      }
      int deliveryCount = deliveryCount(record);
      if (deliveryCount > 1) {
        Counter redeliveries = state.redeliveries(record.topic());
        if (redeliveries != null) {
          redeliveries.increment();
        }
      } else {
        updateLag(instruments, record, pollEpochNanos);
      }
    }
    if (sampled != null) {
      for (ShareDeliveries.Delivery delivery : sampled) {
        SpanRecord span = delivery.span;
        span.put(SpanAttributes.POLL_TIME, pollEpochNanos);
        if (span.startEpochNanos() == 0L) {
          span.setStartEpochNanos(pollEpochNanos);
        }
        span.setEndEpochNanos(pollEpochNanos);
        state.deliveries.add(delivery);
      }
      Object manager = context.stamps.isEmpty() ? null : managerOf(context.stamps);
      if (manager != null && !(States.get(manager) instanceof ShareConsumerState)) {
        // The request manager's completed acknowledgements find this consumer's deliveries.
        States.set(manager, state);
      }
    }
  }

  /**
   * Lag in time for a share group (section 11 of the latency model): the age at {@code P} of the
   * newest record of the partition returned in its first delivery, an upper bound of the age of the
   * oldest record no consumer of the group received yet. Records of a partition come in offset
   * order, so the last one written wins.
   */
  private static void updateLag(
      ConsumerTopicInstruments instruments, ConsumerRecord<?, ?> record, long pollEpochNanos) {
    if (record.timestampType() != TimestampType.CREATE_TIME || record.timestamp() < 0L) {
      return;
    }
    Gauge lag = instruments.lag(record.partition());
    if (lag != null) {
      long ageNanos = pollEpochNanos - record.timestamp() * NANOS_PER_MILLI;
      lag.set(Math.max(0L, ageNanos) / 1e9);
    }
  }

  private static Object managerOf(List<ShareFetchStamp> stamps) {
    for (ShareFetchStamp stamp : stamps) {
      if (stamp != null && stamp.requestManager != null) {
        return stamp.requestManager;
      }
    }
    return null;
  }

  /** The broker's delivery count of the record (1 for the first), or 0 when absent. */
  static int deliveryCount(ConsumerRecord<?, ?> record) {
    Optional<Short> count = record.deliveryCount();
    return count != null && count.isPresent() ? count.get() : 0;
  }

  /** The span of a sampled delivery, without {@code P}: the poll exit adds it. */
  private static ShareDeliveries.Delivery delivery(
      AgentRuntime runtime,
      ConsumerState consumer,
      ConsumerRecord<?, ?> record,
      ShareFetchStamp stamp,
      long[] traceContext,
      long sendEpochMicros) {
    SpanRecord span =
        ConsumerSpans.of(
            runtime,
            consumer,
            record,
            traceContext[TimingHeaderReader.TRACE_ID_HIGH],
            traceContext[TimingHeaderReader.TRACE_ID_LOW],
            traceContext[TimingHeaderReader.PARENT_SPAN_ID],
            stamp != null ? stamp.fetch : null,
            -1L,
            0L,
            SHARE_ATTRIBUTES,
            SHARE_STRING_ATTRIBUTES);
    span.put(SpanAttributes.SEND_TIME, sendEpochMicros * 1000L);
    span.put(SpanAttributes.CONSUMER_GROUP_TYPE, SpanAttributes.GROUP_TYPE_SHARE);
    int deliveryCount = deliveryCount(record);
    if (deliveryCount > 0) {
      span.put(SpanAttributes.SHARE_DELIVERY_COUNT, deliveryCount);
    }
    return new ShareDeliveries.Delivery(
        record.topic(), record.partition(), record.offset(), span, runtime.time.nanoTime());
  }

  /** At {@code KafkaShareConsumer.acknowledge(record)} exit: the application accepted it. */
  public static void onAcknowledge(Object shareConsumer, Object record) {
    acknowledged(shareConsumer, record, ShareDeliveries.ACCEPT);
  }

  /** At {@code KafkaShareConsumer.acknowledge(record, type)} exit. */
  public static void onAcknowledgeTyped(Object shareConsumer, Object record, Object type) {
    try {
      acknowledged(shareConsumer, record, typeName(type));
    } catch (Throwable t) {
      warn("share-consumer-acknowledge", t);
    }
  }

  /** At {@code KafkaShareConsumer.acknowledge(topic, partition, offset, type)} exit (4.2+). */
  public static void onAcknowledgeOffset(
      Object shareConsumer, String topic, int partition, long offset, Object type) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      ShareDeliveries deliveries = deliveriesOf(shareConsumer);
      if (runtime != null && deliveries != null && topic != null) {
        deliveries.acknowledged(
            topic, partition, offset, typeName(type), runtime.time.epochNanos());
      }
    } catch (Throwable t) {
      warn("share-consumer-acknowledge", t);
    }
  }

  private static void acknowledged(Object shareConsumer, Object record, String type) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      ShareDeliveries deliveries = deliveriesOf(shareConsumer);
      if (runtime != null && deliveries != null && record instanceof ConsumerRecord) {
        ConsumerRecord<?, ?> acknowledged = (ConsumerRecord<?, ?>) record;
        deliveries.acknowledged(
            acknowledged.topic(),
            acknowledged.partition(),
            acknowledged.offset(),
            type,
            runtime.time.epochNanos());
      }
    } catch (Throwable t) {
      warn("share-consumer-acknowledge", t);
    }
  }

  // Null unless the consumer has sampled deliveries waiting: one field read and a type check for
  // every acknowledgement of an unsampled record.
  private static ShareDeliveries deliveriesOf(Object shareConsumer) {
    Object state = States.get(shareConsumer);
    if (!(state instanceof ShareConsumerState)) {
      return null;
    }
    ShareDeliveries deliveries = ((ShareConsumerState) state).deliveries;
    return deliveries.isEmpty() ? null : deliveries;
  }

  static String typeName(Object type) {
    return type instanceof AcknowledgeType
        ? ((AcknowledgeType) type).name().toLowerCase(Locale.ROOT)
        : ShareDeliveries.ACCEPT;
  }

  /** At {@code KafkaShareConsumer.close} exit: the deliveries still waiting leave. */
  public static void onClose(Object shareConsumer) {
    try {
      Object state = States.get(shareConsumer);
      if (state instanceof ShareConsumerState) {
        ((ShareConsumerState) state).deliveries.closeAll();
      }
    } catch (Throwable t) {
      warn("share-consumer-close", t);
    }
  }

  /** At {@code ShareSessionHandler.newShareFetchBuilder} exit: takes F. */
  public static void onShareFetchBuilt(Object builder) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null && builder instanceof ShareFetchRequest.Builder) {
        long requestNanos = runtime.time.nanoTime();
        Object data = ((ShareFetchRequest.Builder) builder).data();
        if (data != null) {
          States.set(data, FetchStamp.request(requestNanos, null));
        }
      }
    } catch (Throwable t) {
      warn("share-consumer-fetch-request", t);
    }
  }

  /**
   * At {@code ShareConsumeRequestManager.handleShareFetchSuccess} entry: takes R and publishes F, R
   * and the request manager to this (the network) thread.
   */
  public static void onShareFetchResponse(Object requestData, Object requestManager) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime == null) {
        return;
      }
      long responseNanos = runtime.time.nanoTime();
      ShareHandlerContext handler = ShareHandlerContext.get();
      Object stamp = requestData == null ? null : States.get(requestData);
      handler.requestNanos = stamp instanceof FetchStamp ? ((FetchStamp) stamp).requestNanos : 0L;
      handler.responseNanos = responseNanos;
      handler.requestManager = requestManager;
      handler.active = true;
    } catch (Throwable t) {
      warn("share-consumer-fetch-response", t);
    }
  }

  /** At {@code handleShareFetchSuccess}'s normal exit. */
  public static void onShareFetchResponseDone() {
    try {
      ShareHandlerContext handler = ShareHandlerContext.get();
      handler.active = false;
      handler.requestManager = null;
    } catch (Throwable t) {
      warn("share-consumer-fetch-response", t);
    }
  }

  /** At {@code ShareCompletedFetch} construction exit: the partition's records keep F and R. */
  public static void onCompletedFetchCreated(Object completedFetch) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime == null) {
        return;
      }
      ShareHandlerContext handler = ShareHandlerContext.get();
      ShareFetchStamp stamp =
          handler.active
              ? new ShareFetchStamp(
                  new FetchStamp(handler.requestNanos, handler.responseNanos, true),
                  handler.requestManager)
              : new ShareFetchStamp(new FetchStamp(0L, runtime.time.nanoTime(), true), null);
      States.set(completedFetch, stamp);
    } catch (Throwable t) {
      warn("share-consumer-completed-fetch", t);
    }
  }

  /**
   * At {@code ShareCompletedFetch.parseRecord} exit, on the thread running {@code poll()}: a record
   * of a new delivery. The woven code passes the returned record first.
   */
  public static void onRecordParsed(Object record, Object completedFetch) {
    try {
      SharePollContext context = SharePollContext.get();
      if (context.polling && record instanceof ConsumerRecord) {
        Object stamp = States.get(completedFetch);
        context.note(
            (ConsumerRecord<?, ?>) record,
            stamp instanceof ShareFetchStamp ? (ShareFetchStamp) stamp : null);
      }
    } catch (Throwable t) {
      warn("share-consumer-parse-record", t);
    }
  }

  /**
   * On the network thread, where the request manager hands completed acknowledgements on (to the
   * application's callback, if any): each waiting delivery of the partitions named gets the
   * broker's answer for its offset, the type sent and the error (its simple class name), if any.
   */
  public static void onAcknowledgementsCompleted(
      Object acknowledgementsMap, Object requestManager) {
    try {
      Object state = requestManager == null ? null : States.get(requestManager);
      if (!(state instanceof ShareConsumerState) || !(acknowledgementsMap instanceof Map)) {
        return;
      }
      ShareDeliveries deliveries = ((ShareConsumerState) state).deliveries;
      if (deliveries.isEmpty()) {
        return;
      }
      for (Map.Entry<?, ?> entry : ((Map<?, ?>) acknowledgementsMap).entrySet()) {
        if (!(entry.getKey() instanceof TopicIdPartition)
            || !(entry.getValue() instanceof Acknowledgements)) {
          continue;
        }
        TopicIdPartition partition = (TopicIdPartition) entry.getKey();
        Acknowledgements acknowledgements = (Acknowledgements) entry.getValue();
        List<ShareDeliveries.Delivery> waiting =
            deliveries.waitingOf(partition.topic(), partition.partition());
        if (waiting.isEmpty()) {
          continue;
        }
        KafkaException error = acknowledgements.getAcknowledgeException();
        String errorName = error == null ? null : error.getClass().getSimpleName();
        for (ShareDeliveries.Delivery delivery : waiting) {
          AcknowledgeType type = acknowledgements.get(delivery.offset);
          if (type != null) {
            deliveries.answered(delivery, type.name().toLowerCase(Locale.ROOT), errorName);
          }
        }
      }
    } catch (Throwable t) {
      warn("share-consumer-acknowledgements", t);
    }
  }

  private static ShareConsumerState shareState(AgentRuntime runtime, Object shareConsumer) {
    Object state = States.get(shareConsumer);
    if (state instanceof ShareConsumerState) {
      return (ShareConsumerState) state;
    }
    ShareConsumerState created = new ShareConsumerState(runtime, shareConsumer);
    States.set(shareConsumer, created);
    return created;
  }

  private static void warn(String key, Throwable t) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime != null) {
      runtime.log.warnThrottled(key, "klat hook " + key + " failed: " + t);
    }
  }
}
