package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.metrics.Counter;
import dev.klat.agent.micrometer.MicrometerBridge;
import dev.klat.agent.tail.TailAdmission;
import dev.klat.agent.weave.PrivateFields;
import dev.klat.model.MetricDef;
import dev.klat.model.TimePoint;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** Per-KafkaConsumer state, created at its first {@code poll()} and kept in the consumer itself. */
final class ConsumerState {

  static final int MAX_TOPICS = 10_000;
  static final String OVERFLOW_TOPIC = "_other";
  static final String READ_COMMITTED = "read_committed";
  static final String READ_UNCOMMITTED = "read_uncommitted";

  /**
   * Spans per second and consumer: a hundred producers at the producer's default cap of 100 sampled
   * records per second, with room to spare; beyond it (forged headers), records are still measured
   * but get no span.
   */
  static final long MAX_SPANS_PER_SECOND = 10_000;

  final SpanRateLimiter spanRateLimiter;

  /** Which flagged records become tail spans: {@code klat.tail.max-per-second}, fairly. */
  final TailAdmission tailAdmission;

  final String clientId;
  final String groupId;

  /** The consumer's {@code fetch.min.bytes}, or -1 when this client version hides it. */
  final int fetchMinBytes;

  /** The consumer's {@code fetch.max.wait.ms}, or -1 when this client version hides it. */
  final int fetchMaxWaitMs;

  /** The consumer's {@code max.poll.records}, or -1 when this client version hides it. */
  final int maxPollRecords;

  /**
   * The consumer's {@code isolation.level}, {@code read_committed} or {@code read_uncommitted};
   * null when this client version hides it.
   */
  final String isolationLevel;

  /** Durations ending at P (buffer wait, end-to-end) that came out negative. */
  final Counter clampedAtPoll;

  /** Fetch round trips (ending at R) that came out negative. */
  final Counter clampedAtResponse;

  private final AgentRuntime runtime;
  // Null unless klat.micrometer.enabled and the consumer's loader sees Micrometer.
  private final MicrometerBridge micrometer;
  // Bad headers are rare and their reasons few: a map lookup there costs nothing that matters.
  private final ConcurrentMap<String, Counter> invalidByReason =
      new ConcurrentHashMap<String, Counter>();
  private final ConcurrentMap<String, Object> instrumentsByTopic =
      new ConcurrentHashMap<String, Object>();
  // Most polls return one topic: a reference comparison then replaces the map lookup.
  private volatile ConsumerTopicInstruments lastTopic;
  private volatile ConsumerTopicInstruments overflow;

  ConsumerState(AgentRuntime runtime, Object consumer) {
    this(runtime, consumer, groupIdOf(consumer), null, false);
  }

  /**
   * The state of a consumer whose group id and fetch settings the caller read ({@code
   * fetchSettings} null: looked up as for a {@code KafkaConsumer}). A share group's isolation level
   * is a group setting the client does not know ({@code share} true): none is read.
   */
  ConsumerState(
      AgentRuntime runtime, Object consumer, String groupId, Object fetchSettings, boolean share) {
    this.runtime = runtime;
    this.micrometer = runtime.micrometer(consumer);
    this.spanRateLimiter = new SpanRateLimiter(MAX_SPANS_PER_SECOND, runtime.time.nanoTime());
    this.tailAdmission = runtime.newTailAdmission();
    Object internals = internalsOf(consumer);
    this.clientId = clientIdOf(internals);
    this.groupId = groupId;
    if (fetchSettings == null) {
      fetchSettings = fetchSettingsOf(internals);
    }
    this.fetchMinBytes = intField(fetchSettings, "minBytes");
    this.fetchMaxWaitMs = intField(fetchSettings, "maxWaitMs");
    this.maxPollRecords = intField(fetchSettings, "maxPollRecords");
    this.isolationLevel = share ? null : isolationLevelOf(fetchSettings, internals);
    this.clampedAtPoll =
        runtime.metrics().counter(MetricDef.AGENT_DURATIONS_CLAMPED, TimePoint.POLL.symbol());
    this.clampedAtResponse =
        runtime
            .metrics()
            .counter(MetricDef.AGENT_DURATIONS_CLAMPED, TimePoint.FETCH_RESPONSE.symbol());
  }

  /** The counter of headers rejected for {@code reason}. */
  Counter invalidHeader(String reason) {
    Counter counter = invalidByReason.get(reason);
    if (counter == null) {
      counter = runtime.metrics().counter(MetricDef.AGENT_HEADERS_INVALID, reason);
      Counter raced = invalidByReason.putIfAbsent(reason, counter);
      if (raced != null) {
        counter = raced;
      }
    }
    return counter;
  }

  /** The instruments for records of this topic, or null when the topic is not instrumented. */
  ConsumerTopicInstruments instruments(String topic) {
    ConsumerTopicInstruments last = lastTopic;
    if (last != null && last.topic == topic) {
      return last;
    }
    Object cached = instrumentsByTopic.get(topic);
    if (cached == null && instrumentsByTopic.size() >= MAX_TOPICS) {
      ConsumerTopicInstruments shared = overflow;
      if (shared == null) {
        shared =
            ConsumerTopicInstruments.shared(
                OVERFLOW_TOPIC, groupId, runtime.metrics(), micrometer, runtime.tailThresholds);
        overflow = shared;
      }
      return shared;
    }
    if (cached == null) {
      // Excluded topics are cached as FALSE: one lookup and nothing else.
      Object created =
          runtime.topicFilter.accepts(topic)
              ? new ConsumerTopicInstruments(
                  topic, groupId, runtime.metrics(), micrometer, runtime.tailThresholds)
              : Boolean.FALSE;
      Object raced = instrumentsByTopic.putIfAbsent(topic, created);
      cached = raced != null ? raced : created;
    }
    if (cached instanceof ConsumerTopicInstruments) {
      ConsumerTopicInstruments instruments = (ConsumerTopicInstruments) cached;
      lastTopic = instruments;
      return instruments;
    }
    return null;
  }

  // The group id through public API, which works for every client version and both protocols; a
  // consumer without a group (assign() only) throws, and its group tag is empty.
  private static String groupIdOf(Object consumer) {
    try {
      String group = ((KafkaConsumer<?, ?>) consumer).groupMetadata().groupId();
      return group == null ? "" : group;
    } catch (RuntimeException e) {
      return "";
    }
  }

  // Up to 3.6 KafkaConsumer holds its state itself; from 3.7 its delegate (classic or async) does.
  static Object internalsOf(Object consumer) {
    Object delegate = PrivateFields.read(consumer, "delegate");
    return delegate != null ? delegate : consumer;
  }

  // Read once per consumer, from its internals: no public API exposes client.id.
  private static String clientIdOf(Object internals) {
    Object clientId = PrivateFields.read(internals, "clientId");
    if (clientId instanceof Optional) {
      clientId = ((Optional<?>) clientId).orElse(null);
    }
    return clientId == null ? "" : clientId.toString();
  }

  // The object holding the consumer's fetch.min.bytes and fetch.max.wait.ms, read once per
  // consumer: no public API exposes them. Up to 3.4 the Fetcher holds them itself, from 3.5 its
  // FetchConfig; the new consumer's FetchCollector holds the FetchConfig too. Null when none of
  // these paths exists (a version klat does not know yet).
  private static Object fetchSettingsOf(Object internals) {
    Object fetcher = PrivateFields.read(internals, "fetcher");
    if (fetcher == null) {
      fetcher = PrivateFields.read(internals, "fetchCollector");
    }
    if (fetcher == null) {
      return null;
    }
    Object config = PrivateFields.read(fetcher, "fetchConfig");
    return config != null ? config : fetcher;
  }

  // IsolationLevel sits beside fetch.min.bytes in the Fetcher (2.8 to 3.4) or its FetchConfig (3.5
  // on); the consumer holds its own copy too from 3.1 (from 3.7 its classic or async delegate).
  static String isolationLevelOf(Object fetchSettings, Object internals) {
    Object level =
        fetchSettings == null ? null : PrivateFields.read(fetchSettings, "isolationLevel");
    if (!(level instanceof Enum) && internals != null) {
      level = PrivateFields.read(internals, "isolationLevel");
    }
    if (!(level instanceof Enum)) {
      return null;
    }
    String name = ((Enum<?>) level).name();
    if (name.equals("READ_COMMITTED")) {
      return READ_COMMITTED;
    }
    return name.equals("READ_UNCOMMITTED") ? READ_UNCOMMITTED : null;
  }

  private static int intField(Object target, String name) {
    if (target == null) {
      return -1;
    }
    Object value = PrivateFields.read(target, name);
    return value instanceof Integer ? (Integer) value : -1;
  }
}
