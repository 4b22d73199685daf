package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.WallClock;
import dev.klat.agent.export.Gauge;
import dev.klat.agent.export.LatencyHistogram;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.weave.StateHolder;
import dev.klat.model.HeaderNames;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TimingHeader;
import java.lang.reflect.Method;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.TimestampType;

/**
 * The consumer hooks' logic, called from the advice that {@link ConsumerInstrumentation} weaves
 * into kafka-clients. Each method is one advice's whole body, catches everything, and returns
 * nothing: a failure costs the agent its measurement, never the application its records.
 *
 * <p>How a record gets its instants: the fetch request's {@code FetchRequestData} is stamped with
 * {@code F} when it is built; the response handler publishes {@code F} and {@code R} to its thread
 * ({@link HandlerContext}); each {@code CompletedFetch} built there keeps them ({@link
 * FetchStamp}); {@code CompletedFetch.fetchRecords} hands a list of records to {@code poll()},
 * noted in {@link PollContext} (from 3.5 with each record already noted as {@code parseRecord}
 * built it); at {@code poll()} exit every noted record gets {@code P}. A record that waited in the
 * fetch buffer across several polls keeps the {@code R} of the response that brought it.
 *
 * <p>Public only because woven code in kafka-clients' packages calls it.
 */
public final class ConsumerHooks {

  /** A send time further ahead of this host's clock than this is forged or a broken clock. */
  static final long MAX_FUTURE_MICROS = 300_000_000L;

  /** Reprocessing a year-old topic is legitimate; older send times are not trusted. */
  static final long MAX_AGE_MICROS = 366L * 24 * 3600 * 1_000_000L;

  /** W3C allows longer values for future versions; anything beyond this is garbage. */
  static final int MAX_TRACEPARENT_BYTES = 512;

  static final String REASON_DUPLICATE_TIMING = "duplicate";
  static final String REASON_TRACEPARENT_INVALID = "traceparent-invalid";
  static final String REASON_TRACEPARENT_MISSING = "traceparent-missing";
  static final String REASON_TRACEPARENT_DUPLICATE = "traceparent-duplicate";

  private static final long NANOS_PER_MILLI = 1_000_000L;

  /**
   * A response handled this long after {@code poll()} began came in while the poll waited for it;
   * one handled sooner may have waited in the socket while the application was busy (the classic
   * consumer reads it at the start of the next poll), by an unknown time.
   */
  static final long PROMPT_AFTER_POLL_ENTRY_NANOS = 2 * NANOS_PER_MILLI;

  /**
   * A response read at the start of a {@code poll()} that followed the previous one within this
   * time waited in the socket at most that long: an application polling in a tight loop.
   */
  static final long PROMPT_POLL_GAP_NANOS = NANOS_PER_MILLI;

  private static final long NO_START = Long.MIN_VALUE;
  private static final double NANOS_PER_SECOND = 1e9;

  // For 2.8, whose partition data is FetchResponse.PartitionData: its highWatermark() by
  // reflection, looked up once.
  private static volatile boolean legacyPartitionData;
  private static volatile Method legacyHighWatermark;

  private ConsumerHooks() {}

  /** At {@code KafkaConsumer.poll} entry: forgets records a previous poll collected but threw. */
  public static void onPollEnter(Object consumer) {
    try {
      if (AgentRuntime.get() != null) {
        PollContext context = PollContext.get();
        context.clear();
        context.polling = true;
        context.pollEnterNanos = System.nanoTime();
      }
    } catch (Throwable t) {
      warn("consumer-poll", t);
    }
  }

  /**
   * At each normal return of {@code KafkaConsumer.poll}: reports every record the poll collected.
   * The woven code passes the returned value first.
   *
   * <p>Two passes, so that {@code P} is when {@code poll()} really returns to the application: the
   * first reads the records' headers and builds the spans of sampled records (the costly part),
   * then {@code P} is taken, then the second records the histograms and finishes the spans, which
   * takes a few atomic additions per record.
   */
  public static void onPollReturn(Object returned, Object consumer) {
    onPollExit(consumer, returned);
  }

  static void onPollExit(Object consumer, Object returned) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime == null) {
      return;
    }
    PollContext context = null;
    try {
      context = PollContext.get();
      if (context.size == 0) {
        return;
      }
      ConsumerState state = consumerState(runtime, consumer);
      for (int i = 0; i < context.size; i++) {
        readList(runtime, state, context, i);
      }
      long pollNanos = System.nanoTime();
      long pollEpochNanos = WallClock.epochNanos(pollNanos);
      for (int i = 0; i < context.size; i++) {
        reportList(state, context, i, pollNanos, pollEpochNanos);
      }
      for (int i = 0; i < context.spanCount; i++) {
        SpanRecord span = context.spans[i];
        span.put(SpanAttributes.POLL_TIME, pollEpochNanos);
        if (span.startEpochNanos() == 0L) {
          span.setStartEpochNanos(pollEpochNanos);
        }
        runtime.export(span.setEndEpochNanos(pollEpochNanos));
      }
    } catch (Throwable t) {
      warn("consumer-poll", t);
    } finally {
      if (context != null) {
        context.clear();
        context.lastPollExitNanos = System.nanoTime();
      }
    }
  }

  /** At {@code FetchSessionHandler.FetchRequestData} construction exit: takes F. */
  public static void onFetchRequestCreated(Object requestData) {
    long requestNanos = System.nanoTime();
    try {
      if (AgentRuntime.get() != null) {
        ((StateHolder) requestData).klat$state(FetchStamp.request(requestNanos, PollContext.get()));
      }
    } catch (Throwable t) {
      warn("consumer-fetch-request", t);
    }
  }

  /** At the fetch response handler's entry: takes R and publishes F and R to this thread. */
  public static void onFetchResponse(Object requestData) {
    long responseNanos = System.nanoTime();
    try {
      if (AgentRuntime.get() == null) {
        return;
      }
      HandlerContext handler = HandlerContext.get();
      Object stamp =
          requestData instanceof StateHolder ? ((StateHolder) requestData).klat$state() : null;
      FetchStamp request = stamp instanceof FetchStamp ? (FetchStamp) stamp : null;
      handler.requestNanos = request != null ? request.requestNanos : 0L;
      handler.responseNanos = responseNanos;
      handler.readPromptly =
          handler.networkThread || readWhilePollWaited(responseNanos, PollContext.get(), request);
      handler.active = true;
    } catch (Throwable t) {
      warn("consumer-fetch-response", t);
    }
  }

  // On a classic consumer the handler runs on the application's thread inside poll() (or
  // commitSync() and the like, which count as not prompt), or on the heartbeat thread. The
  // heartbeat thread runs the handlers of the responses that complete while it holds the client's
  // lock: on time when the application thread was waiting in poll() (it gives the lock up as its
  // wait ends), late when the application was busy and only the heartbeat's periodic wake-up read
  // the socket.
  private static boolean readWhilePollWaited(
      long responseNanos, PollContext current, FetchStamp request) {
    PollContext requester = request != null ? request.requester : null;
    PollContext poll = current.polling || requester == null ? current : requester;
    return readWhilePollWaited(responseNanos, poll);
  }

  private static boolean readWhilePollWaited(long responseNanos, PollContext poll) {
    if (!poll.polling) {
      return false;
    }
    return responseNanos - poll.pollEnterNanos >= PROMPT_AFTER_POLL_ENTRY_NANOS
        || (poll.lastPollExitNanos != 0L
            && poll.pollEnterNanos - poll.lastPollExitNanos <= PROMPT_POLL_GAP_NANOS);
  }

  /** At the fetch response handler's normal exit. */
  public static void onFetchResponseDone() {
    try {
      HandlerContext.get().active = false;
    } catch (Throwable t) {
      warn("consumer-fetch-response", t);
    }
  }

  /** At {@code CompletedFetch} construction exit: the partition's records keep F and R. */
  public static void onCompletedFetchCreated(Object completedFetch) {
    long nowNanos = System.nanoTime();
    try {
      if (AgentRuntime.get() == null) {
        return;
      }
      HandlerContext handler = HandlerContext.get();
      FetchStamp stamp =
          handler.active
              ? new FetchStamp(handler.requestNanos, handler.responseNanos, handler.readPromptly)
              : new FetchStamp(0L, nowNanos, false);
      ((StateHolder) completedFetch).klat$state(stamp);
    } catch (Throwable t) {
      warn("consumer-completed-fetch", t);
    }
  }

  /**
   * At {@code CompletedFetch.parseRecord} exit (3.5 and later), on the thread running {@code
   * poll()}, once per record: notes where the record's end-to-end latency starts while the record
   * Kafka just built is still in the CPU's cache (read again at {@code poll()} exit, a few hundred
   * kilobytes of allocation later, the same reads missed the cache and were most of the consumer
   * hooks' cost). The woven code passes the returned record first.
   */
  public static void onRecordParsed(Object record, Object completedFetch) {
    try {
      PollContext context = PollContext.forNoting();
      if (context.polling) {
        context.noteParsed(completedFetch, (ConsumerRecord<?, ?>) record);
      }
    } catch (Throwable t) {
      warn("consumer-parse-record", t);
    }
  }

  /**
   * At {@code CompletedFetch.fetchRecords} exit, on the thread running {@code poll()}: notes the
   * records handed out and the fetch they came from.
   */
  public static void onRecordsReturned(
      List<?> records, Object completedFetch, TopicPartition partition, Object partitionData) {
    onRecordsFetched(completedFetch, partition, partitionData, records);
  }

  static void onRecordsFetched(
      Object completedFetch, TopicPartition partition, Object partitionData, List<?> records) {
    try {
      if (records == null || records.isEmpty() || partition == null || AgentRuntime.get() == null) {
        return;
      }
      PollContext context = PollContext.get();
      if (!context.polling) {
        return;
      }
      Object stamp = ((StateHolder) completedFetch).klat$state();
      context.add(
          records,
          stamp instanceof FetchStamp ? (FetchStamp) stamp : null,
          partition,
          highWatermark(partitionData));
    } catch (Throwable t) {
      warn("consumer-fetch-records", t);
    }
  }

  private static ConsumerState consumerState(AgentRuntime runtime, Object consumer) {
    StateHolder holder = (StateHolder) consumer;
    Object state = holder.klat$state();
    if (state instanceof ConsumerState) {
      return (ConsumerState) state;
    }
    ConsumerState created = new ConsumerState(runtime, consumer);
    holder.klat$state(created);
    return created;
  }

  /**
   * First pass over one list: resolves its instruments, and notes where the end-to-end latency of
   * each of its records starts ({@code S} of a valid header, else a {@code CreateTime} timestamp),
   * exporting nothing yet. A list noted as its records were parsed only has its records with a klat
   * timing header left to read; any other list is read whole, its starts appended to {@code
   * context.e2eStartEpochNanos}.
   */
  private static void readList(
      AgentRuntime runtime, ConsumerState state, PollContext context, int index) {
    List<?> records = context.lists[index];
    int count = Math.min(context.counts[index], records.size());
    context.counts[index] = count;
    ConsumerTopicInstruments instruments =
        count == 0 ? null : state.instruments(context.partitions[index].topic());
    context.instruments[index] = instruments;
    if (instruments == null) {
      return;
    }
    PartitionFetchHistory history = instruments.history(context.partitions[index].partition());
    if (history != null) {
      history.note(context.stamps[index], context.highWatermarks[index]);
    }
    context.listHistory = history;
    if (context.preRead[index]) {
      for (int k = context.headersFrom[index]; k < context.headersTo[index]; k++) {
        int position = context.headerIndexes[k];
        ConsumerRecord<?, ?> record =
            position < count ? (ConsumerRecord<?, ?>) records.get(position) : null;
        context.headerStartEpochNanos[k] =
            record == null ? NO_START : e2eStart(runtime, state, context, index, record);
      }
      return;
    }
    int next = context.startCount;
    context.ensureRecordCapacity(next + count);
    context.e2eStartsFrom[index] = next;
    long[] e2eStarts = context.e2eStartEpochNanos;
    for (int i = 0; i < count; i++) {
      long start = e2eStart(runtime, state, context, index, (ConsumerRecord<?, ?>) records.get(i));
      if (start != NO_START) {
        e2eStarts[next++] = start;
      }
    }
    context.e2eStartsTo[index] = next;
    context.startCount = next;
  }

  /**
   * Where a record's end-to-end latency starts, in epoch nanoseconds: {@code S} of a valid klat
   * header (whose span, when sampled, is built here), else its {@code CreateTime} timestamp, else
   * {@link #NO_START}.
   */
  private static long e2eStart(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      int index,
      ConsumerRecord<?, ?> record) {
    Header timing = record.headers().lastHeader(HeaderNames.TIMING);
    if (timing != null) {
      long sendEpochMicros =
          readTimingHeader(
              runtime,
              state,
              context,
              record,
              timing,
              context.stamps[index],
              context.highWatermarks[index]);
      if (sendEpochMicros > 0L) {
        return sendEpochMicros * 1000L;
      }
    }
    if (record.timestampType() == TimestampType.CREATE_TIME) {
      long timestamp = record.timestamp();
      if (timestamp >= 0L) {
        return timestamp * NANOS_PER_MILLI;
      }
    }
    return NO_START;
  }

  /**
   * Second pass over one list, after P was taken: histograms and the lag gauge. {@code R - F} and
   * {@code P - R} are the same for every record of the list (one response, one poll): one recording
   * with a count each. The end-to-end latencies go in at once, one atomic addition per run of
   * records in the same bucket; those of records with a klat header one by one.
   */
  private static void reportList(
      ConsumerState state, PollContext context, int index, long pollNanos, long pollEpochNanos) {
    ConsumerTopicInstruments instruments = context.instruments[index];
    if (instruments == null) {
      return;
    }
    int count = context.counts[index];
    FetchStamp stamp = context.stamps[index];
    if (stamp != null) {
      if (stamp.requestNanos != 0L) {
        record(
            state.clampedAtResponse,
            instruments.fetchLatency,
            stamp.responseNanos - stamp.requestNanos,
            count);
      }
      record(
          state.clampedAtPoll, instruments.bufferLatency, pollNanos - stamp.responseNanos, count);
    }
    int from = context.e2eStartsFrom[index];
    int to = context.e2eStartsTo[index];
    if (to > from) {
      // Negative ones (a future timestamp, a skewed producer clock) are never recorded.
      int negatives =
          instruments.e2eLatency.recordAll(pollEpochNanos, context.e2eStartEpochNanos, from, to);
      if (negatives > 0) {
        state.clampedAtPoll.add(negatives);
      }
    }
    if (context.preRead[index]) {
      for (int k = context.headersFrom[index]; k < context.headersTo[index]; k++) {
        long start = context.headerStartEpochNanos[k];
        if (start != NO_START) {
          record(state.clampedAtPoll, instruments.e2eLatency, pollEpochNanos - start, 1);
        }
      }
    }
    List<?> records = context.lists[index];
    updateLag(
        instruments,
        context.partitions[index],
        (ConsumerRecord<?, ?>) records.get(count - 1),
        context.highWatermarks[index],
        pollEpochNanos);
  }

  /**
   * Consumer lag in time, after this poll: 0 when the poll returned everything the fetch response
   * said was committed; otherwise the age of the last record returned, which bounds from above the
   * age of the oldest committed record still waiting (it was appended later).
   */
  private static void updateLag(
      ConsumerTopicInstruments instruments,
      TopicPartition partition,
      ConsumerRecord<?, ?> last,
      long highWatermark,
      long pollEpochNanos) {
    Gauge lag = instruments.lag(partition.partition());
    if (lag == null) {
      return;
    }
    if (highWatermark >= 0L && last.offset() + 1 >= highWatermark) {
      lag.set(0.0);
    } else if (last.timestampType() == TimestampType.CREATE_TIME && last.timestamp() >= 0L) {
      long ageNanos = pollEpochNanos - last.timestamp() * NANOS_PER_MILLI;
      lag.set(Math.max(0L, ageNanos) / NANOS_PER_SECOND);
    }
  }

  private static void record(
      dev.klat.agent.export.Counter clamped, LatencyHistogram histogram, long nanos, int count) {
    if (nanos < 0L) {
      // Never a latency: a clock step, a forged header or a future timestamp.
      clamped.add(count);
      return;
    }
    histogram.recordNanos(nanos, count);
  }

  /**
   * Validates the klat headers of a record that has a timing header, exports its span when it is
   * sampled, and returns its {@code S} in epoch microseconds, or 0 when the header is unusable.
   * Only records stamped by a producer agent (or forged) get here, so allocation is allowed.
   */
  private static long readTimingHeader(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      ConsumerRecord<?, ?> record,
      Header timing,
      FetchStamp stamp,
      long highWatermark) {
    int timings = 0;
    int traceparents = 0;
    Header traceparent = null;
    for (Header header : record.headers()) {
      String key = header.key();
      if (HeaderNames.TIMING.equals(key)) {
        timings++;
      } else if (HeaderNames.TRACEPARENT.equals(key)) {
        traceparents++;
        traceparent = header;
      }
    }
    if (timings > 1) {
      state.invalidHeader(REASON_DUPLICATE_TIMING).increment();
      return 0L;
    }
    TimingHeader.Decoded decoded = context.decoded;
    TimingHeader.DecodeError error = TimingHeader.decode(timing.value(), decoded);
    if (error == TimingHeader.DecodeError.NONE) {
      error =
          TimingHeader.checkPlausible(
              decoded.sendEpochMicros(),
              WallClock.epochNanos(System.nanoTime()) / 1000L,
              MAX_FUTURE_MICROS,
              MAX_AGE_MICROS);
    }
    if (error != TimingHeader.DecodeError.NONE) {
      state.invalidHeader(error.id()).increment();
      return 0L;
    }
    long sendEpochMicros = decoded.sendEpochMicros();
    if (!decoded.sampled() || !state.spanRateLimiter.tryAcquire(System.nanoTime())) {
      return sendEpochMicros;
    }
    long[] parent = null;
    if (traceparents == 1) {
      byte[] value = traceparent.value();
      long[] parsed = new long[4];
      if (value != null
          && value.length <= MAX_TRACEPARENT_BYTES
          && TraceIds.parseTraceparent(value, parsed)) {
        parent = parsed;
      } else {
        state.invalidHeader(REASON_TRACEPARENT_INVALID).increment();
      }
    } else {
      state
          .invalidHeader(
              traceparents == 0 ? REASON_TRACEPARENT_MISSING : REASON_TRACEPARENT_DUPLICATE)
          .increment();
    }
    PartitionFetchHistory history = context.listHistory;
    long uncommittedAtNanos = history != null ? history.uncommittedAtNanos(record.offset()) : 0L;
    context.addSpan(
        span(
            runtime,
            state,
            record,
            parent,
            sendEpochMicros,
            stamp,
            highWatermark,
            uncommittedAtNanos));
    return sendEpochMicros;
  }

  /** The span of a sampled record, without P: the poll exit's second pass adds it. */
  private static SpanRecord span(
      AgentRuntime runtime,
      ConsumerState state,
      ConsumerRecord<?, ?> record,
      long[] parent,
      long sendEpochMicros,
      FetchStamp stamp,
      long highWatermark,
      long uncommittedAtNanos) {
    // A bad or missing trace context starts a fresh trace; the collector still joins the span to
    // the producer's by topic, partition and offset.
    long traceIdHigh = parent != null ? parent[0] : TraceIds.randomNonZeroLong();
    long traceIdLow = parent != null ? parent[1] : TraceIds.randomNonZeroLong();
    SpanRecord span =
        new SpanRecord()
            .setTraceId(traceIdHigh, traceIdLow)
            .setSpanId(TraceIds.randomNonZeroLong())
            .setParentSpanId(parent != null ? parent[2] : 0L)
            .setKind(SpanRecord.KIND_CONSUMER)
            .setName("poll " + record.topic());
    span.put(SpanAttributes.MESSAGING_SYSTEM, SpanAttributes.MESSAGING_SYSTEM_KAFKA);
    span.put(SpanAttributes.MESSAGING_DESTINATION_NAME, record.topic());
    span.put(
        SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID, Integer.toString(record.partition()));
    span.put(SpanAttributes.MESSAGING_KAFKA_OFFSET, record.offset());
    span.put(SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME, state.groupId);
    span.put(SpanAttributes.MESSAGING_CLIENT_ID, state.clientId);
    span.put(SpanAttributes.INSTANCE_ID, runtime.instanceId);
    span.put(SpanAttributes.SEND_TIME, sendEpochMicros * 1000L);
    if (stamp != null) {
      long responseEpochNanos = WallClock.epochNanos(stamp.responseNanos);
      long startEpochNanos = responseEpochNanos;
      if (stamp.requestNanos != 0L) {
        startEpochNanos = WallClock.epochNanos(stamp.requestNanos);
        span.put(SpanAttributes.FETCH_REQUEST_TIME, startEpochNanos);
      }
      span.put(SpanAttributes.FETCH_RESPONSE_TIME, responseEpochNanos);
      span.put(SpanAttributes.FETCH_RESPONSE_READ_PROMPTLY, stamp.readPromptly);
      span.setStartEpochNanos(startEpochNanos);
    }
    span.put(SpanAttributes.RECORD_TIMESTAMP_MS, record.timestamp());
    span.put(
        SpanAttributes.RECORD_TIMESTAMP_TYPE,
        record.timestampType() == TimestampType.LOG_APPEND_TIME ? "LogAppendTime" : "CreateTime");
    if (highWatermark >= 0L) {
      span.put(SpanAttributes.PARTITION_HIGH_WATERMARK, highWatermark);
    }
    if (uncommittedAtNanos != 0L) {
      span.put(SpanAttributes.RECORD_UNCOMMITTED_TIME, WallClock.epochNanos(uncommittedAtNanos));
    }
    if (state.fetchMinBytes >= 0) {
      span.put(SpanAttributes.CONSUMER_FETCH_MIN_BYTES, state.fetchMinBytes);
    }
    if (state.fetchMaxWaitMs >= 0) {
      span.put(SpanAttributes.CONSUMER_FETCH_MAX_WAIT_MS, state.fetchMaxWaitMs);
    }
    return span;
  }

  private static long highWatermark(Object partitionData) {
    if (partitionData == null) {
      return -1L;
    }
    if (!legacyPartitionData) {
      try {
        return ModernPartitionData.highWatermark(partitionData);
      } catch (NoClassDefFoundError e) {
        // 2.8: FetchResponseData.PartitionData does not exist yet; never try again.
        legacyPartitionData = true;
      }
    }
    try {
      Class<?> type = partitionData.getClass();
      Method method = legacyHighWatermark;
      if (method == null || method.getDeclaringClass() != type) {
        method = type.getMethod("highWatermark");
        legacyHighWatermark = method;
      }
      return ((Number) method.invoke(partitionData)).longValue();
    } catch (Exception | LinkageError e) {
      return -1L;
    }
  }

  /** Names a class that exists from 3.0 only, so that 2.8 fails here once and not at linking. */
  private static final class ModernPartitionData {
    static long highWatermark(Object partitionData) {
      return partitionData instanceof FetchResponseData.PartitionData
          ? ((FetchResponseData.PartitionData) partitionData).highWatermark()
          : -1L;
    }
  }

  private static void warn(String key, Throwable t) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime != null) {
      runtime.log.warnThrottled(key, "klat hook " + key + " failed: " + t);
    }
  }
}
