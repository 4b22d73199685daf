package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.micrometer.MicrometerBridge;
import dev.klat.agent.tail.TailAdmission;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.kafka.clients.producer.ProducerConfig;

/** Per-KafkaProducer state, created at its first send and kept in the producer itself. */
final class ProducerState {

  private static final byte MAGIC_VALUE_V2 = 2;
  static final int MAX_TOPICS = 10_000;
  static final String OVERFLOW_TOPIC = "_other";

  final String clientId;
  final String acks;
  final String compression;

  /** {@code linger.ms}, or -1 when unreadable: evidence for the collector's diagnosis. */
  final long lingerMs;

  /** {@code batch.size} in bytes, or -1. */
  final long batchSizeBytes;

  /** {@code buffer.memory} in bytes, or -1. */
  final long bufferMemoryBytes;

  /** {@code max.in.flight.requests.per.connection}, or -1. */
  final long maxInFlight;

  final SampleRateLimiter sampleRateLimiter;

  /**
   * The spans waiting for their transaction's end, for a producer with a {@code transactional.id};
   * null otherwise. Two threads racing on a producer's very first {@code send()} may each create a
   * state (see {@code ProducerHooks}); the spans the losing state holds are then never exported
   * (they go with it to the garbage collector). A transaction belongs to one producer and is
   * normally driven by one thread, so this costs at most the first few spans.
   */
  final TransactionSpans transactions;

  /** This producer's fair cap on tail spans ({@code klat.tail.max-per-second}). */
  final TailAdmission tailAdmission;

  private final AgentRuntime runtime;
  // Null unless klat.micrometer.enabled and the producer's loader sees Micrometer.
  private final MicrometerBridge micrometer;
  private final Object apiVersions;
  private final Method maxUsableProduceMagic;
  private final ConcurrentMap<String, Object> instrumentsByTopic =
      new ConcurrentHashMap<String, Object>();
  // The last topic sent to: most producers write to one topic, and then a reference comparison
  // replaces the map lookup.
  private volatile TopicInstruments lastTopic;

  /** The name of the last span exported, by {@link ProducerSpans#spanName}; racy by design. */
  ProducerSpans.SpanName lastSpanName;

  private volatile TopicInstruments overflow;

  ProducerState(
      AgentRuntime runtime,
      String clientId,
      Object producerConfig,
      Object apiVersions,
      MicrometerBridge micrometer) {
    this.runtime = runtime;
    this.micrometer = micrometer;
    this.clientId = clientId == null ? "" : clientId;
    this.acks = configString(producerConfig, ProducerConfig.ACKS_CONFIG);
    this.compression = configString(producerConfig, ProducerConfig.COMPRESSION_TYPE_CONFIG);
    this.lingerMs = configLong(producerConfig, ProducerConfig.LINGER_MS_CONFIG);
    this.batchSizeBytes = configLong(producerConfig, ProducerConfig.BATCH_SIZE_CONFIG);
    this.bufferMemoryBytes = configLong(producerConfig, ProducerConfig.BUFFER_MEMORY_CONFIG);
    this.maxInFlight =
        configLong(producerConfig, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
    this.sampleRateLimiter =
        new SampleRateLimiter(runtime.maxSampledPerSecond, runtime.time.nanoTime());
    this.tailAdmission = runtime.newTailAdmission();
    this.transactions =
        configString(producerConfig, ProducerConfig.TRANSACTIONAL_ID_CONFIG).isEmpty()
            ? null
            : new TransactionSpans(runtime.metrics());
    this.apiVersions = apiVersions;
    this.maxUsableProduceMagic = findMaxUsableProduceMagic(apiVersions);
  }

  /** The instruments for records of this topic, or null when the topic is not instrumented. */
  TopicInstruments instruments(String topic) {
    TopicInstruments last = lastTopic;
    if (last != null && last.topic == topic) {
      return last;
    }
    Object cached = instrumentsByTopic.get(topic);
    if (cached == null && instrumentsByTopic.size() >= MAX_TOPICS) {
      // Bounded memory for producers that write to very many topics: the rest share one series.
      return overflowInstruments();
    }
    if (cached == null) {
      // Excluded topics are cached as FALSE, so that they cost one lookup and nothing else.
      Object created = runtime.topicFilter.accepts(topic) ? newInstruments(topic) : Boolean.FALSE;
      Object raced = instrumentsByTopic.putIfAbsent(topic, created);
      cached = raced != null ? raced : created;
    }
    if (cached instanceof TopicInstruments) {
      TopicInstruments instruments = (TopicInstruments) cached;
      lastTopic = instruments;
      return instruments;
    }
    return null;
  }

  private TopicInstruments newInstruments(String topic) {
    return new TopicInstruments(
        topic,
        clientId,
        runtime.metrics(),
        micrometer,
        this,
        runtime.tailThresholds,
        tailAdmission);
  }

  private TopicInstruments overflowInstruments() {
    TopicInstruments shared = overflow;
    if (shared == null) {
      // Without tail capture: its records' topics are not its name, and a tail span's identity
      // (its trace id) is derived from the record's own topic.
      shared = new TopicInstruments(OVERFLOW_TOPIC, clientId, runtime.metrics(), micrometer);
      overflow = shared;
    }
    return shared;
  }

  /**
   * Whether the records this producer writes can carry headers. Clients before 4.0 may still
   * downgrade to message format v0/v1 for very old brokers, which have no headers; 4.0 removed both
   * the downgrade and the method.
   */
  boolean recordFormatCarriesHeaders() {
    if (maxUsableProduceMagic == null) {
      return true;
    }
    try {
      return ((Byte) maxUsableProduceMagic.invoke(apiVersions)) >= MAGIC_VALUE_V2;
    } catch (Exception e) {
      return false;
    }
  }

  private static Method findMaxUsableProduceMagic(Object apiVersions) {
    if (apiVersions == null) {
      return null;
    }
    try {
      return apiVersions.getClass().getMethod("maxUsableProduceMagic");
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  private static String configString(Object producerConfig, String key) {
    try {
      Object value = ((ProducerConfig) producerConfig).getString(key);
      return value == null ? "" : value.toString();
    } catch (RuntimeException e) {
      return "";
    }
  }

  // Through the parsed values, whose type (int or long) differs between keys and versions.
  private static long configLong(Object producerConfig, String key) {
    try {
      Object value = ((ProducerConfig) producerConfig).values().get(key);
      return value instanceof Number ? ((Number) value).longValue() : -1L;
    } catch (RuntimeException e) {
      return -1L;
    }
  }
}
