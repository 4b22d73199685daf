package dev.klat.agent.consumer;

import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.link.ThreadLinks;
import dev.klat.agent.weave.States;
import dev.klat.model.HeaderNames;
import dev.klat.model.TimingHeader;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;

/**
 * The record lists {@code CompletedFetch.fetchRecords} handed out during the {@code poll()} running
 * on this thread, each with the fetch it came from. {@code poll()} collects records on the calling
 * thread in every client version and protocol, so the {@code poll()} exit hook finds here exactly
 * the records it returns, without touching {@code ConsumerRecords}.
 *
 * <p>Grows once to the largest number of lists one poll returned, then allocates nothing.
 */
final class PollContext {

  private static final ThreadLocal<PollContext> CURRENT =
      new ThreadLocal<PollContext>() {
        @Override
        protected PollContext initialValue() {
          return new PollContext();
        }
      };

  private static final int INITIAL_CAPACITY = 16;
  private static final long NANOS_PER_MILLI = 1_000_000L;

  int size;
  List<?>[] lists = new List<?>[INITIAL_CAPACITY];
  int[] counts = new int[INITIAL_CAPACITY];
  FetchStamp[] stamps = new FetchStamp[INITIAL_CAPACITY];
  TopicPartition[] partitions = new TopicPartition[INITIAL_CAPACITY];
  long[] highWatermarks = new long[INITIAL_CAPACITY];
  ConsumerTopicInstruments[] instruments = new ConsumerTopicInstruments[INITIAL_CAPACITY];

  /** The partition history of the list {@code poll()} exit is reading, null when none is kept. */
  PartitionFetchHistory listHistory;

  /**
   * Where the end-to-end latency of each record starts, records without a start (no {@code
   * CreateTime} timestamp, or a klat header, whose records are read at {@code poll()} exit) left
   * out; list {@code i}'s starts are {@code [e2eStartsFrom[i], e2eStartsTo[i])}. Starts noted as
   * the records were parsed come first, in parsing order; lists read at {@code poll()} exit follow.
   */
  long[] e2eStartEpochNanos = new long[512];

  int startCount;
  int[] e2eStartsFrom = new int[INITIAL_CAPACITY];
  int[] e2eStartsTo = new int[INITIAL_CAPACITY];

  /**
   * Whether records of {@code LogAppendTime} topics have their timestamp ({@code L}) noted, for
   * tail capture's {@code P - L} (section 8 of the latency model); set at {@code poll()} entry.
   */
  boolean notesAppendTimes;

  /**
   * The timestamps ({@code L}) of records without a klat header on {@code LogAppendTime} topics, in
   * epoch nanoseconds, laid out as {@link #e2eStartEpochNanos}: list {@code i}'s are {@code
   * [appendTimesFrom[i], appendTimesTo[i])}. Noted only while {@link #notesAppendTimes}; they never
   * reach the end-to-end histogram.
   */
  long[] appendEpochNanos = new long[INITIAL_CAPACITY];

  int appendCount;
  int[] appendTimesFrom = new int[INITIAL_CAPACITY];
  int[] appendTimesTo = new int[INITIAL_CAPACITY];

  /**
   * Whether list {@code i} was read as its records were parsed: its starts are noted, and only its
   * records with a klat timing header, at indexes {@code headerIndexes[headersFrom[i] ..
   * headersTo[i])}, are left for {@code poll()} exit. Otherwise the exit reads the whole list, and
   * notes its records with a klat timing header there the same way. Either way the starts in {@link
   * #e2eStartEpochNanos} are exactly those of the list's records without a klat timing header, with
   * a {@code CreateTime} timestamp of at least 0, in list order: tail capture finds a flagged
   * start's record by that rule.
   */
  boolean[] preRead = new boolean[INITIAL_CAPACITY];

  int[] headersFrom = new int[INITIAL_CAPACITY];
  int[] headersTo = new int[INITIAL_CAPACITY];
  int headerCount;
  int[] headerIndexes = new int[INITIAL_CAPACITY];

  /** Per entry of {@link #headerIndexes}: where that record's end-to-end latency starts. */
  long[] headerStartEpochNanos = new long[INITIAL_CAPACITY];

  // The three poll-state fields are volatile because a classic consumer's heartbeat thread reads
  // them too: it runs the fetch response handlers that complete while it holds the client's lock.

  /** Set by the {@code poll()} entry hook: records are noted only inside a poll. */
  volatile boolean polling;

  /** When the current {@code poll()} began, in {@link System#nanoTime()}; valid while polling. */
  volatile long pollEnterNanos;

  /** When the last {@code poll()} on this thread returned, or 0. */
  volatile long lastPollExitNanos;

  /** How many records the last {@code poll()} on this thread returned, or -1 before the first. */
  int lastPollRecords = -1;

  /**
   * The records being parsed for the next list: the {@code CompletedFetch} they come from and its
   * stamp (null when that fetch has none: its records are not noted), how many, where their notes
   * begin. Comparing the {@code CompletedFetch} itself spares each record the read of its volatile
   * {@code klat$state} field; the stamp is read once per fetch and list.
   */
  Object parsingCompletedFetch;

  FetchStamp parsingFetch;

  int parsedRecords;
  int parsedStartsFrom;
  int parsedAppendsFrom;
  int parsedHeadersFrom;

  /** Spans of sampled records, waiting for P, then tail spans, built after P. */
  int spanCount;

  SpanRecord[] spans = new SpanRecord[INITIAL_CAPACITY];
  // The topic of each span, for its evidence at the poll's exit.
  String[] spanTopics = new String[INITIAL_CAPACITY];
  // Whether each span is a tail span: exported through the tail's share of the queue.
  boolean[] spanIsTail = new boolean[INITIAL_CAPACITY];

  /** Reused for every sampled record's header on this thread. */
  final TimingHeader.Decoded decoded = new TimingHeader.Decoded();

  // The context a record was last noted in. Most applications poll from one thread, so this
  // saves the ThreadLocal lookup per record; a plain field, checked against the current thread
  // (a final field, so another thread's context is never seen half-built).
  private static PollContext lastNoted;

  private final Thread thread = Thread.currentThread();

  /** This thread's link state: the poll exit registers its sampled records there. */
  final ThreadLinks links = ThreadLinks.current();

  private PollContext() {}

  static PollContext get() {
    return CURRENT.get();
  }

  /** {@link #get()}, without the ThreadLocal lookup when this thread asked last. */
  static PollContext forNoting() {
    PollContext context = lastNoted;
    if (context == null || context.thread != Thread.currentThread()) {
      context = CURRENT.get();
      lastNoted = context;
    }
    return context;
  }

  /**
   * Notes a list {@code fetchRecords} handed out. When the records parsed since the last list are
   * exactly this list's (same fetch, same number), their notes become the list's; otherwise they
   * are dropped and {@code poll()} exit reads the list.
   */
  void add(List<?> records, FetchStamp stamp, TopicPartition partition, long highWatermark) {
    if (size == lists.length) {
      grow();
    }
    int count = records.size();
    lists[size] = records;
    counts[size] = count;
    stamps[size] = stamp;
    partitions[size] = partition;
    highWatermarks[size] = highWatermark;
    if (parsingFetch != null && parsingFetch == stamp && parsedRecords == count) {
      preRead[size] = true;
      e2eStartsFrom[size] = parsedStartsFrom;
      e2eStartsTo[size] = startCount;
      appendTimesFrom[size] = parsedAppendsFrom;
      appendTimesTo[size] = appendCount;
      headersFrom[size] = parsedHeadersFrom;
      headersTo[size] = headerCount;
      parsingFetch = null;
      // The same CompletedFetch parses its next list afresh (a partition's fetch often spans
      // polls).
      parsingCompletedFetch = null;
    } else {
      preRead[size] = false;
      dropParsed();
    }
    size++;
  }

  /**
   * Notes one record {@code CompletedFetch.parseRecord} just built, while it is still in the CPU's
   * cache: where its end-to-end latency starts, or, when it has a klat timing header, its index in
   * the list, left for {@code poll()} exit. A record without headers costs one {@code lastHeader}
   * lookup and two field reads here. The order of the tests is the one {@code
   * ConsumerHooks.readList} follows: tail capture relies on it.
   */
  void noteParsed(Object completedFetch, ConsumerRecord<?, ?> record) {
    if (parsingCompletedFetch != completedFetch) {
      startParsing(completedFetch);
    }
    if (parsingFetch == null) {
      // A fetch without a stamp (its response came before the agent saw a request): not noted,
      // and its list has no stamp either, so poll() exit reads it whole.
      return;
    }
    if (record.headers().lastHeader(HeaderNames.TIMING) != null) {
      if (headerCount == headerIndexes.length) {
        headerIndexes = java.util.Arrays.copyOf(headerIndexes, 2 * headerCount);
        headerStartEpochNanos = java.util.Arrays.copyOf(headerStartEpochNanos, 2 * headerCount);
      }
      headerIndexes[headerCount++] = parsedRecords;
    } else {
      TimestampType type = record.timestampType();
      if (type == TimestampType.CREATE_TIME) {
        long timestamp = record.timestamp();
        if (timestamp >= 0L) {
          if (startCount == e2eStartEpochNanos.length) {
            e2eStartEpochNanos = java.util.Arrays.copyOf(e2eStartEpochNanos, 2 * startCount);
          }
          e2eStartEpochNanos[startCount++] = timestamp * NANOS_PER_MILLI;
        }
      } else if (type == TimestampType.LOG_APPEND_TIME && notesAppendTimes) {
        long timestamp = record.timestamp();
        if (timestamp >= 0L) {
          if (appendCount == appendEpochNanos.length) {
            appendEpochNanos = java.util.Arrays.copyOf(appendEpochNanos, 2 * appendCount);
          }
          appendEpochNanos[appendCount++] = timestamp * NANOS_PER_MILLI;
        }
      }
    }
    parsedRecords++;
  }

  // Once per CompletedFetch and list, not per record: the fetch's stamp is read here.
  private void startParsing(Object completedFetch) {
    dropParsed();
    Object stamp = States.get(completedFetch);
    parsingCompletedFetch = completedFetch;
    parsingFetch = stamp instanceof FetchStamp ? (FetchStamp) stamp : null;
    parsedRecords = 0;
    parsedStartsFrom = startCount;
    parsedAppendsFrom = appendCount;
    parsedHeadersFrom = headerCount;
  }

  // Notes of records that did not reach a list (fetchRecords threw after parsing them) are the
  // newest: forget them.
  private void dropParsed() {
    if (parsingFetch != null) {
      startCount = parsedStartsFrom;
      appendCount = parsedAppendsFrom;
      headerCount = parsedHeadersFrom;
      parsingFetch = null;
    }
    parsingCompletedFetch = null;
  }

  void ensureRecordCapacity(int records) {
    if (records > e2eStartEpochNanos.length) {
      e2eStartEpochNanos =
          java.util.Arrays.copyOf(
              e2eStartEpochNanos, Math.max(records, 2 * e2eStartEpochNanos.length));
    }
  }

  void addAppendTime(long epochNanos) {
    if (appendCount == appendEpochNanos.length) {
      appendEpochNanos = java.util.Arrays.copyOf(appendEpochNanos, 2 * appendCount);
    }
    appendEpochNanos[appendCount++] = epochNanos;
  }

  /** Notes a record with a klat timing header at {@code index} of its list, read at poll exit. */
  void addHeaderRecord(int index, long startEpochNanos) {
    if (headerCount == headerIndexes.length) {
      headerIndexes = java.util.Arrays.copyOf(headerIndexes, 2 * headerCount);
      headerStartEpochNanos = java.util.Arrays.copyOf(headerStartEpochNanos, 2 * headerCount);
    }
    headerStartEpochNanos[headerCount] = startEpochNanos;
    headerIndexes[headerCount++] = index;
  }

  void addSpan(SpanRecord span, String topic) {
    addSpan(span, topic, false);
  }

  void addSpan(SpanRecord span, String topic, boolean tail) {
    if (spanCount == spans.length) {
      spans = java.util.Arrays.copyOf(spans, 2 * spans.length);
      spanTopics = java.util.Arrays.copyOf(spanTopics, spans.length);
      spanIsTail = java.util.Arrays.copyOf(spanIsTail, spans.length);
    }
    spanTopics[spanCount] = topic;
    spanIsTail[spanCount] = tail;
    spans[spanCount++] = span;
  }

  /** Forgets every list, so that records of a poll that threw are never reported later. */
  void clear() {
    for (int i = 0; i < size; i++) {
      lists[i] = null;
      stamps[i] = null;
      partitions[i] = null;
      instruments[i] = null;
    }
    size = 0;
    startCount = 0;
    appendCount = 0;
    headerCount = 0;
    parsingFetch = null;
    parsingCompletedFetch = null;
    listHistory = null;
    polling = false;
    for (int i = 0; i < spanCount; i++) {
      spans[i] = null;
      spanTopics[i] = null;
    }
    spanCount = 0;
  }

  private void grow() {
    int capacity = lists.length * 2;
    lists = java.util.Arrays.copyOf(lists, capacity);
    counts = java.util.Arrays.copyOf(counts, capacity);
    stamps = java.util.Arrays.copyOf(stamps, capacity);
    partitions = java.util.Arrays.copyOf(partitions, capacity);
    highWatermarks = java.util.Arrays.copyOf(highWatermarks, capacity);
    instruments = java.util.Arrays.copyOf(instruments, capacity);
    e2eStartsFrom = java.util.Arrays.copyOf(e2eStartsFrom, capacity);
    e2eStartsTo = java.util.Arrays.copyOf(e2eStartsTo, capacity);
    appendTimesFrom = java.util.Arrays.copyOf(appendTimesFrom, capacity);
    appendTimesTo = java.util.Arrays.copyOf(appendTimesTo, capacity);
    preRead = java.util.Arrays.copyOf(preRead, capacity);
    headersFrom = java.util.Arrays.copyOf(headersFrom, capacity);
    headersTo = java.util.Arrays.copyOf(headersTo, capacity);
  }
}
