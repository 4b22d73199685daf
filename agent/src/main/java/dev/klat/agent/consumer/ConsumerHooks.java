package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.link.IterationCursor;
import dev.klat.agent.link.ThreadLinks;
import dev.klat.agent.weave.States;
import dev.klat.agentcore.weave.StateHolder;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.HeaderNames;
import dev.klat.model.SpanAttributes;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
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

  static final long NO_START = Long.MIN_VALUE;

  private ConsumerHooks() {}

  /** At {@code KafkaConsumer.poll} entry: forgets records a previous poll collected but threw. */
  public static void onPollEnter(Object consumer) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        PollContext context = PollContext.get();
        context.clear();
        context.links.pollStarted();
        context.polling = true;
        context.notesAppendTimes = runtime.tailEnabled;
        context.pollEnterNanos = runtime.time.nanoTime();
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
   * then {@code P} is taken, then the second records the histograms, flags the tail records ({@link
   * ConsumerTail}: one comparison per record, a span only for the few admitted) and finishes the
   * spans, which takes a few atomic additions per record.
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
    int polled = 0;
    try {
      context = PollContext.get();
      if (context.size == 0) {
        return;
      }
      for (int i = 0; i < context.size; i++) {
        polled += context.counts[i];
      }
      ConsumerState state = consumerState(runtime, consumer);
      for (int i = 0; i < context.size; i++) {
        readList(runtime, state, context, i);
      }
      long pollNanos = runtime.time.nanoTime();
      long pollEpochNanos = runtime.time.epochNanosAt(pollNanos);
      for (int i = 0; i < context.size; i++) {
        PollReport.reportList(state, context, i, pollNanos, pollEpochNanos);
        ConsumerTail.flagList(runtime, state, context, i, pollNanos, pollEpochNanos);
      }
      // What the application did between polls, for the sampled records' diagnosis: per poll.
      long gapNanos =
          context.lastPollExitNanos != 0L
              ? context.pollEnterNanos - context.lastPollExitNanos
              : -1L;
      Set<TopicPartition> assigned = context.spanCount > 0 ? assignment(consumer) : null;
      for (int i = 0; i < context.spanCount; i++) {
        SpanRecord span = context.spans[i];
        span.put(SpanAttributes.POLL_TIME, pollEpochNanos);
        if (assigned != null) {
          span.put(
              EvidenceAttributes.CONSUMER_ASSIGNED_PARTITIONS,
              partitionsOf(assigned, context.spanTopics[i]));
        }
        if (gapNanos >= 0L && context.lastPollRecords >= 0) {
          span.put(EvidenceAttributes.CONSUMER_POLL_GAP_NS, gapNanos);
          span.put(EvidenceAttributes.CONSUMER_PREVIOUS_POLL_RECORDS, context.lastPollRecords);
        }
        if (span.startEpochNanos() == 0L) {
          span.setStartEpochNanos(pollEpochNanos);
        }
        span.setEndEpochNanos(pollEpochNanos);
        if (context.spanIsTail[i]) {
          runtime.exportTail(span);
        } else {
          runtime.export(span);
        }
      }
    } catch (Throwable t) {
      warn("consumer-poll", t);
    } finally {
      if (context != null) {
        context.clear();
        context.lastPollExitNanos = runtime.time.nanoTime();
        context.lastPollRecords = polled;
      }
    }
  }

  // Read only for a poll that returned sampled records: the consumer copies its assignment.
  private static Set<TopicPartition> assignment(Object consumer) {
    try {
      return ((Consumer<?, ?>) consumer).assignment();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static long partitionsOf(Set<TopicPartition> assigned, String topic) {
    long count = 0;
    for (TopicPartition partition : assigned) {
      if (partition.topic().equals(topic)) {
        count++;
      }
    }
    return count;
  }

  /** At {@code FetchSessionHandler.FetchRequestData} construction exit: takes F. */
  public static void onFetchRequestCreated(Object requestData) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        long requestNanos = runtime.time.nanoTime();
        States.set(requestData, FetchStamp.request(requestNanos, PollContext.get()));
      }
    } catch (Throwable t) {
      warn("consumer-fetch-request", t);
    }
  }

  /** At the fetch response handler's entry: takes R and publishes F and R to this thread. */
  public static void onFetchResponse(Object requestData) {
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime == null) {
        return;
      }
      long responseNanos = runtime.time.nanoTime();
      HandlerContext handler = HandlerContext.get();
      Object stamp = States.get(requestData);
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
    try {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime == null) {
        return;
      }
      HandlerContext handler = HandlerContext.get();
      FetchStamp stamp =
          handler.active
              ? new FetchStamp(handler.requestNanos, handler.responseNanos, handler.readPromptly)
              : new FetchStamp(0L, runtime.time.nanoTime(), false);
      States.set(completedFetch, stamp);
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
      Object stamp = States.get(completedFetch);
      context.add(
          records,
          stamp instanceof FetchStamp ? (FetchStamp) stamp : null,
          partition,
          HighWatermarks.of(partitionData));
    } catch (Throwable t) {
      warn("consumer-fetch-records", t);
    }
  }

  /**
   * At the exit of {@code ConsumerRecords$ConcatenatedIterable.iterator()} (what {@code
   * ConsumerRecords.iterator()} and {@code records(String)} iterate with, 2.8 to 4.4): when this
   * thread's latest poll returned sampled records, gives the new iterator a {@link IterationCursor}
   * over those of them it will hand out, in its order. Once per iterator; nothing for a poll
   * without sampled records. The woven code passes the returned iterator first, then the iterable's
   * lists.
   */
  public static void onRecordsIterator(Object iterator, Object iterables) {
    try {
      if (!(iterator instanceof StateHolder)) {
        // Attached to a running JVM that had loaded the iterator class: it has no field for the
        // cursor, and a map lookup per record would cost every record. No poll-loop link.
        return;
      }
      ThreadLinks links = ThreadLinks.current();
      if (links.polledCount() == 0) {
        return;
      }
      IterationCursor cursor = RecordOrder.cursor(links, iterables);
      if (cursor != null) {
        ((StateHolder) iterator).klat$state(cursor);
      }
    } catch (Throwable t) {
      warn("consumer-records-iterator", t);
    }
  }

  /**
   * At each return of the {@code ConsumerRecords} iterator's {@code makeNext()}: the application
   * takes {@code record} ({@code hasNext()} makes it, {@code next()} hands it out). An iterator
   * without a cursor (no sampled record in the thread's latest poll) costs a type check and a field
   * read; one with a cursor a comparison and a store ({@link IterationCursor#taken}). The woven
   * code passes the returned record first.
   */
  public static void onRecordTaken(Object record, Object iterator) {
    try {
      if (iterator instanceof StateHolder) {
        Object cursor = ((StateHolder) iterator).klat$state();
        if (cursor != null) {
          ((IterationCursor) cursor).taken(record);
        }
      }
    } catch (Throwable t) {
      warn("consumer-record-taken", t);
    }
  }

  private static ConsumerState consumerState(AgentRuntime runtime, Object consumer) {
    Object state = States.get(consumer);
    if (state instanceof ConsumerState) {
      return (ConsumerState) state;
    }
    ConsumerState created = new ConsumerState(runtime, consumer);
    States.set(consumer, created);
    return created;
  }

  /**
   * First pass over one list: resolves its instruments, and notes where the end-to-end latency of
   * each of its records starts ({@code S} of a valid header, else a {@code CreateTime} timestamp),
   * exporting nothing yet. A list noted as its records were parsed only has its records with a klat
   * timing header left to read; any other list is read whole, the same way {@link
   * PollContext#noteParsed} notes records: starts of records without a klat header appended to
   * {@code context.e2eStartEpochNanos} (and their {@code LogAppendTime} timestamps to {@code
   * context.appendEpochNanos}), records with one noted by their index.
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
            record == null
                ? NO_START
                : headerRecordStart(
                    runtime,
                    state,
                    context,
                    index,
                    record,
                    record.headers().lastHeader(HeaderNames.TIMING));
      }
      return;
    }
    int next = context.startCount;
    context.ensureRecordCapacity(next + count);
    context.e2eStartsFrom[index] = next;
    context.headersFrom[index] = context.headerCount;
    context.appendTimesFrom[index] = context.appendCount;
    long[] e2eStarts = context.e2eStartEpochNanos;
    boolean notesAppendTimes = context.notesAppendTimes;
    for (int i = 0; i < count; i++) {
      ConsumerRecord<?, ?> record = (ConsumerRecord<?, ?>) records.get(i);
      Header timing = record.headers().lastHeader(HeaderNames.TIMING);
      if (timing != null) {
        context.addHeaderRecord(
            i, headerRecordStart(runtime, state, context, index, record, timing));
      } else if (record.timestampType() == TimestampType.CREATE_TIME) {
        long timestamp = record.timestamp();
        if (timestamp >= 0L) {
          e2eStarts[next++] = timestamp * NANOS_PER_MILLI;
        }
      } else if (notesAppendTimes && record.timestampType() == TimestampType.LOG_APPEND_TIME) {
        long timestamp = record.timestamp();
        if (timestamp >= 0L) {
          context.addAppendTime(timestamp * NANOS_PER_MILLI);
        }
      }
    }
    context.e2eStartsTo[index] = next;
    context.startCount = next;
    context.headersTo[index] = context.headerCount;
    context.appendTimesTo[index] = context.appendCount;
  }

  /**
   * Where the end-to-end latency of a record with a klat timing header starts, in epoch
   * nanoseconds: {@code S} of a valid header (whose span, when sampled, is built here), else its
   * {@code CreateTime} timestamp, else {@link #NO_START}.
   */
  private static long headerRecordStart(
      AgentRuntime runtime,
      ConsumerState state,
      PollContext context,
      int index,
      ConsumerRecord<?, ?> record,
      Header timing) {
    if (timing != null) {
      long sendEpochMicros =
          TimingHeaderReader.read(
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

  private static void warn(String key, Throwable t) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime != null) {
      runtime.log.warnThrottled(key, "klat hook " + key + " failed: " + t);
    }
  }
}
