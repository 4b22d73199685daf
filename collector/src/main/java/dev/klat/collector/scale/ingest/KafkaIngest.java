package dev.klat.collector.scale.ingest;

import dev.klat.collector.SpanTopicSettings;
import dev.klat.collector.receive.BusyException;
import dev.klat.collector.receive.MalformedException;
import dev.klat.collector.receive.OtlpSink;
import dev.klat.collector.receive.ReceiverStats;
import dev.klat.collector.scale.SpanTopics;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The ingest role's sink: writes each OTLP request to the span topics instead of joining it. Trace
 * requests are split per trace ({@link TraceSplitter}) and keyed by trace id, metrics requests go
 * whole keyed by the agent's instance id, the broker probes' logs requests go whole without a key.
 * Only OTLP/protobuf is taken: the topics carry protobuf, as the OpenTelemetry Collector's {@code
 * kafka} exporter writes it with {@code encoding: otlp_proto}, and re-encoding JSON is work the
 * agents never need (they send protobuf).
 *
 * <p>A request never waits for the broker: the producer never blocks ({@code max.block.ms=0}), and
 * a record it cannot take at once (buffer full, a topic without metadata) refuses the request as
 * busy, 429 with {@code Retry-After}, which the agent retries. The answer leaves once every record
 * of the request is in the producer's buffer, not once the broker has it: waiting for the acks
 * would hold a request slot for a broker round trip plus {@code linger.ms}, and so divide what one
 * ingest member takes, to close a window (a crash of this process with records still buffered) that
 * latency telemetry can afford. A retry after a partial refusal writes the request's first traces
 * again; the join drops duplicate spans. Thread-safe.
 */
public final class KafkaIngest implements OtlpSink, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(KafkaIngest.class.getName());
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
  private static final byte[] EMPTY_RESPONSE = new byte[0];
  static final String JSON_REFUSED =
      "this collector runs the ingest role, which forwards OTLP protobuf only: send"
          + " application/x-protobuf";

  private final Producer<byte[], byte[]> producer;
  private final SpanTopicSettings topics;
  private final ReceiverStats stats = new ReceiverStats();
  private final AtomicBoolean lossLogged = new AtomicBoolean();

  /** Writes to {@code topics} with {@code producer}, which it closes; for the tests. */
  KafkaIngest(Producer<byte[], byte[]> producer, SpanTopicSettings topics) {
    this.producer = producer;
    this.topics = topics;
  }

  /**
   * Creates the span topics if absent ({@link SpanTopics#ensure}), then a producer that knows their
   * partitions, so that the first request finds them.
   *
   * @throws IllegalStateException if the cluster cannot be reached or refuses the topics within 30
   *     seconds
   */
  public static KafkaIngest start(SpanTopicSettings topics) {
    Map<String, Object> admin = new HashMap<>();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, topics.bootstrapServers());
    admin.put(AdminClientConfig.CLIENT_ID_CONFIG, "klat-ingest-admin");
    admin.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) START_TIMEOUT.toMillis());
    admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) START_TIMEOUT.toMillis() / 2);
    try (Admin client = Admin.create(topics.client().over(admin, "the ingest role's admin"))) {
      SpanTopics.ensure(client, topics);
    }
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            topics.client().over(producerConfig(topics.bootstrapServers()), "the ingest producer"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    try {
      awaitMetadata(producer, topics);
    } catch (RuntimeException e) {
      producer.close(Duration.ZERO);
      throw e;
    }
    return new KafkaIngest(producer, topics);
  }

  static Map<String, Object> producerConfig(String bootstrapServers) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "klat-ingest");
    // Every span reaches the join once it is acknowledged, with no duplicate from the producer's
    // own retries (an agent's retry can still duplicate: the join drops duplicates).
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    // The collector's kafka-clients leaves out lz4-java, snappy and zstd-jni (see the pom: the
    // collector wrote no records before), and gzip costs more CPU than the ingest role spends on
    // a request. Uncompressed until measured otherwise.
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
    // Never block a request slot: a record the producer cannot take at once fails its send.
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 0);
    // With max.block.ms=0, a topic whose metadata the producer dropped fails sends until it is
    // fetched again: keep the three topics' metadata however quiet one of them is.
    p.put(ProducerConfig.METADATA_MAX_IDLE_CONFIG, Duration.ofDays(7).toMillis());
    return p;
  }

  // With max.block.ms=0, partitionsFor fails at once until the metadata is there: poll it.
  private static void awaitMetadata(Producer<byte[], byte[]> producer, SpanTopicSettings topics) {
    long deadlineNanos = System.nanoTime() + START_TIMEOUT.toNanos();
    for (String topic : List.of(topics.spansTopic(), topics.metricsTopic(), topics.logsTopic())) {
      while (true) {
        try {
          if (!producer.partitionsFor(topic).isEmpty()) {
            break;
          }
        } catch (TimeoutException e) {
          // not yet
        }
        if (System.nanoTime() > deadlineNanos) {
          throw new IllegalStateException(
              "no metadata for topic "
                  + topic
                  + " at "
                  + topics.bootstrapServers()
                  + " after "
                  + START_TIMEOUT);
        }
        try {
          TimeUnit.MILLISECONDS.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
        }
      }
    }
  }

  @Override
  public ReceiverStats stats() {
    return stats;
  }

  /** Admits every request: the producer says per record whether it can take it. */
  @Override
  public void admitTraces() {}

  @Override
  public boolean acceptsJson() {
    return false;
  }

  @Override
  public byte[] traces(byte[] body, int length, boolean json)
      throws MalformedException, BusyException {
    refuseJson(json);
    List<TraceSplitter.Piece> pieces = TraceSplitter.split(body, length);
    long spans = 0;
    for (TraceSplitter.Piece piece : pieces) {
      spans += piece.spans();
    }
    long forwarded = 0;
    try {
      for (TraceSplitter.Piece piece : pieces) {
        send(topics.spansTopic(), piece.key(), piece.body());
        forwarded += piece.spans();
      }
    } finally {
      stats.addSpansForwarded(spans, forwarded, spans - forwarded);
    }
    return EMPTY_RESPONSE;
  }

  @Override
  public byte[] metrics(byte[] body, int length, boolean json)
      throws MalformedException, BusyException {
    refuseJson(json);
    send(topics.metricsTopic(), InstanceKey.of(body, length), Arrays.copyOf(body, length));
    return EMPTY_RESPONSE;
  }

  @Override
  public byte[] logs(byte[] body, int length) throws MalformedException, BusyException {
    send(topics.logsTopic(), null, Arrays.copyOf(body, length));
    return EMPTY_RESPONSE;
  }

  private static void refuseJson(boolean json) throws MalformedException {
    if (json) {
      throw new MalformedException(JSON_REFUSED);
    }
  }

  /**
   * Hands one record to the producer. kafka-clients reports a record it cannot take (buffer
   * exhausted, no metadata, too large) as a future that has already failed, older clients by a
   * throw: both are read here, and the failure belongs to the request, not to the callback.
   */
  private void send(String topic, byte[] key, byte[] value)
      throws BusyException, MalformedException {
    Delivery delivery = new Delivery(topic);
    Future<RecordMetadata> future;
    try {
      future = producer.send(new ProducerRecord<>(topic, key, value), delivery);
    } catch (TimeoutException | RecordTooLargeException e) {
      fail(topic, value, e);
      return;
    }
    delivery.sendReturned = true;
    if (future.isDone() && delivery.claim()) {
      try {
        future.get();
      } catch (ExecutionException e) {
        fail(topic, value, e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Refuses the request for the record the producer did not take; always throws. */
  private static void fail(String topic, byte[] value, Throwable cause)
      throws BusyException, MalformedException {
    if (cause instanceof BufferExhaustedException) {
      throw new BusyException(
          "producer-buffer-full", "span topic producer buffer full, retry later");
    }
    if (cause instanceof TimeoutException) {
      throw new BusyException(
          "span-topic-unavailable", "topic " + topic + " not available yet, retry later");
    }
    if (cause instanceof RecordTooLargeException) {
      // Not retryable: the same request would be as large again.
      throw new MalformedException(
          "a record of " + value.length + " bytes is over what topic " + topic + " takes");
    }
    throw new IllegalStateException("producing to " + topic + " failed: " + cause, cause);
  }

  /**
   * A record's completion. Exactly one of the sender (a failure before the answer: the request is
   * refused) and this callback (a failure after it: the record is lost) owns a failure.
   */
  private final class Delivery implements Callback {
    private final String topic;
    private final AtomicBoolean claimed = new AtomicBoolean();
    volatile boolean sendReturned;

    Delivery(String topic) {
      this.topic = topic;
    }

    boolean claim() {
      return claimed.compareAndSet(false, true);
    }

    @Override
    public void onCompletion(RecordMetadata metadata, Exception e) {
      // A failure inside send() runs this before send() returns: the sender handles it.
      if (e == null || !sendReturned || !claim()) {
        return;
      }
      stats.addRecordLost();
      if (lossLogged.compareAndSet(false, true)) {
        LOG.log(
            Level.WARNING,
            "a record for "
                + topic
                + " was lost after its request was answered"
                + " (counted in recordsLost; logged once)",
            e);
      }
    }
  }

  /** Sends what the producer holds, waiting at most 10 seconds. */
  @Override
  public void close() {
    producer.close(CLOSE_TIMEOUT);
  }
}
