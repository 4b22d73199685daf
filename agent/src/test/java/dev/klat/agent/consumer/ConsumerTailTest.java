package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.ManualTime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.TraceIds;
import dev.klat.agentcore.otlp.TestCollector;
import dev.klat.model.AttributeDef;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TailTraceIds;
import dev.klat.model.TimingHeader;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Consumer tail capture (section 8 of the latency model), driven through the consumer hooks as
 * woven kafka-clients calls them, with real {@code ConsumerRecord}s, exporting to a real OTLP
 * receiver: which records are flagged, and the tail span each admitted one becomes.
 */
class ConsumerTailTest {

  private static final String TOPIC = "orders";
  private static final int PARTITION_NUMBER = 3;
  private static final TopicPartition PARTITION = new TopicPartition(TOPIC, PARTITION_NUMBER);
  private static final long THRESHOLD_MILLIS = 1_000;
  private static final long SLOW_MILLIS = 5_000;
  private static final long RECEIVE_TIMEOUT_MILLIS = 10_000;

  private final ManualTime time = new ManualTime();
  private final TestStateHolder consumer = new TestStateHolder();
  private final TestCollector collector;
  private AgentRuntime runtime;

  ConsumerTailTest() throws IOException {
    collector = new TestCollector();
  }

  @AfterEach
  void close() {
    TestRuntime.uninstall();
    collector.close();
  }

  @Test
  void unflaggedRecordsExportNothingAndASlowCreateTimeRecordGetsATailSpan() throws Exception {
    install(Map.of("klat.tail.consumer-threshold", THRESHOLD_MILLIS + "ms"));
    long now = nowMillis();
    pollParsed(respond(), record(10, now, headers()), record(11, now - 20, headers()));
    long before = time.epochNanos();
    pollParsed(respond(), record(12, now - 2, headers()), record(13, now - SLOW_MILLIS, headers()));
    long after = time.epochNanos();

    List<Span> spans = spansThrough(offset(13));
    assertThat(spans).hasSize(1);
    Span span = spans.get(0);
    assertThat(span.getName()).isEqualTo("poll " + TOPIC);
    assertThat(span.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CONSUMER);
    assertThat(span.getParentSpanId().isEmpty()).isTrue();
    ByteBuffer traceId = span.getTraceId().asReadOnlyByteBuffer();
    long topicHash = TailTraceIds.topicHash(TOPIC);
    assertThat(traceId.getLong()).isEqualTo(TailTraceIds.high(topicHash, PARTITION_NUMBER, 13));
    assertThat(traceId.getLong()).isEqualTo(TailTraceIds.low(topicHash, PARTITION_NUMBER, 13));
    Map<String, AnyValue> attributes = attributes(span);
    assertThat(string(attributes, SpanAttributes.CAPTURE)).isEqualTo("tail");
    assertThat(number(attributes, SpanAttributes.TAIL_THRESHOLD_NANOS))
        .isEqualTo(THRESHOLD_MILLIS * 1_000_000L);
    assertThat(string(attributes, SpanAttributes.MESSAGING_DESTINATION_NAME)).isEqualTo(TOPIC);
    assertThat(string(attributes, SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID))
        .isEqualTo(Integer.toString(PARTITION_NUMBER));
    assertThat(number(attributes, SpanAttributes.MESSAGING_KAFKA_OFFSET)).isEqualTo(13);
    assertThat(number(attributes, SpanAttributes.RECORD_TIMESTAMP_MS)).isEqualTo(now - SLOW_MILLIS);
    assertThat(string(attributes, SpanAttributes.RECORD_TIMESTAMP_TYPE)).isEqualTo("CreateTime");
    long poll = number(attributes, SpanAttributes.POLL_TIME);
    assertThat(poll).isBetween(before, after);
    assertThat(number(attributes, SpanAttributes.FETCH_REQUEST_TIME))
        .isLessThanOrEqualTo(number(attributes, SpanAttributes.FETCH_RESPONSE_TIME));
    assertThat(number(attributes, SpanAttributes.FETCH_RESPONSE_TIME)).isLessThanOrEqualTo(poll);
    assertThat(attributes).doesNotContainKey(SpanAttributes.SEND_TIME.name());
    assertThat(span.getEndTimeUnixNano()).isEqualTo(poll);
    assertThat(flagged()).isEqualTo(1);
    // Every record's end-to-end latency is still recorded, the slow one's too.
    assertThat(runtime.metrics().histogram(MetricDef.E2E_LATENCY, TOPIC, "").count()).isEqualTo(4);
  }

  @Test
  void aLogAppendTimeRecordIsFlaggedByPMinusLAndNeverEntersTheEndToEndHistogram() throws Exception {
    install(Map.of("klat.tail.consumer-threshold", THRESHOLD_MILLIS + "ms"));
    long now = nowMillis();
    pollParsed(
        respond(),
        appendRecord(20, now - 3, headers()),
        appendRecord(21, now - SLOW_MILLIS, headers()),
        appendRecord(22, now, headers()));
    // Read at poll exit (kafka-clients up to 3.4) the same way.
    poll(
        respond(),
        appendRecord(23, now - SLOW_MILLIS, headers()),
        appendRecord(24, now, headers()));

    List<Span> spans = spansThrough(offset(23));
    assertThat(spans).extracting(ConsumerTailTest::offsetOf).containsExactly(21L, 23L);
    assertThat(string(attributes(spans.get(0)), SpanAttributes.RECORD_TIMESTAMP_TYPE))
        .isEqualTo("LogAppendTime");
    assertThat(runtime.metrics().histogram(MetricDef.E2E_LATENCY, TOPIC, "").count()).isZero();
    assertThat(flagged()).isEqualTo(2);
  }

  @Test
  void anAutoThresholdOnALogAppendTimeTopicFollowsItsRecentP99() throws Exception {
    install(Map.of());
    // One record makes the threshold; its window starts at the next refresh.
    pollParsed(respond(), appendRecord(0, nowMillis() - 2, headers()));
    runtime.tailThresholds.refresh(time.nanoTime());
    long typicalMillis = 100;
    long built = time.epochNanos();
    List<ConsumerRecord<String, String>> typical = new ArrayList<>();
    for (int i = 1; i <= 1_000; i++) {
      typical.add(appendRecord(i, nowMillis() - typicalMillis, headers()));
    }
    pollParsed(respond(), typical.toArray(new ConsumerRecord[0]));
    long polledMillis = (time.epochNanos() - built) / 1_000_000L;
    time.advanceMillis(5_001);
    runtime.tailThresholds.refresh(time.nanoTime());
    long now = nowMillis();
    pollParsed(
        respond(),
        appendRecord(2_000, now - 2, headers()),
        appendRecord(2_001, now - SLOW_MILLIS, headers()));

    List<Span> spans = spansThrough(offset(2_001));
    assertThat(spans).extracting(ConsumerTailTest::offsetOf).containsExactly(2_001L);
    // The p99 of P - L, between 100 ms and that plus the time the records took to poll, to the
    // upper bound of its bucket (6.25% wide).
    assertThat(number(attributes(spans.get(0)), SpanAttributes.TAIL_THRESHOLD_NANOS))
        .isBetween(typicalMillis * 1_000_000L, (typicalMillis + polledMillis + 1) * 1_070_000L);
    assertThat(runtime.metrics().histogram(MetricDef.E2E_LATENCY, TOPIC, "").count()).isZero();
  }

  @Test
  void recordsWithAKlatTimingHeaderAreNeverFlaggedAndTheOthersKeepTheirOffsets() throws Exception {
    install(Map.of("klat.tail.consumer-threshold", THRESHOLD_MILLIS + "ms"));
    long old = nowMillis() - SLOW_MILLIS;
    // Unsampled headers, so that no sampled span is made either: slow, but not flagged.
    pollParsed(
        respond(),
        record(30, old, stamped(old)),
        record(31, old, headers()),
        record(32, old, stamped(old)),
        record(33, nowMillis(), headers()),
        record(34, old, headers()));
    poll(
        respond(),
        record(40, old, headers()),
        record(41, old, stamped(old)),
        record(42, old, headers()));

    List<Span> spans = spansThrough(offset(42));
    assertThat(spans).extracting(ConsumerTailTest::offsetOf).containsExactly(31L, 34L, 40L, 42L);
    assertThat(flagged()).isEqualTo(4);
  }

  @Test
  void aListWithRecordsOfNoTimestampFindsTheFlaggedRecordsByWalkingIt() throws Exception {
    install(Map.of("klat.tail.consumer-threshold", THRESHOLD_MILLIS + "ms"));
    long old = nowMillis() - SLOW_MILLIS;
    pollParsed(
        respond(),
        record(50, -1L, headers()),
        record(51, old, stamped(old)),
        record(52, old, headers()),
        appendRecord(53, nowMillis(), headers()),
        record(54, old, headers()));

    List<Span> spans = spansThrough(offset(54));
    assertThat(spans).extracting(ConsumerTailTest::offsetOf).containsExactly(52L, 54L);
  }

  @Test
  void withTailCaptureOffNothingIsFlagged() throws Exception {
    install(
        Map.of(
            "klat.tail.enabled", "false", "klat.tail.consumer-threshold", THRESHOLD_MILLIS + "ms"));
    long old = nowMillis() - SLOW_MILLIS;
    pollParsed(respond(), record(60, old, headers()), appendRecord(61, old, headers()));
    // A sampled record's span marks the end of what the poll exported.
    poll(respond(), record(62, nowMillis(), sampled(nowMillis())));

    List<Span> spans = spansThrough(offset(62));
    assertThat(spans).extracting(ConsumerTailTest::offsetOf).containsExactly(62L);
    assertThat(attributes(spans.get(0))).doesNotContainKey(SpanAttributes.CAPTURE.name());
    assertThat(PollContext.get().notesAppendTimes).isFalse();
    assertThat(instruments().tailFlagged).isNull();
  }

  @Test
  void withACapOfZeroFlaggedRecordsAreCountedButGetNoSpan() throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put("klat.tail.consumer-threshold", THRESHOLD_MILLIS + "ms");
    settings.put("klat.tail.max-per-second", "0");
    install(settings);
    long old = nowMillis() - SLOW_MILLIS;
    pollParsed(respond(), record(70, old, headers()), record(71, old, headers()));
    poll(respond(), record(72, nowMillis(), sampled(nowMillis())));

    List<Span> spans = spansThrough(offset(72));
    assertThat(spans).extracting(ConsumerTailTest::offsetOf).containsExactly(72L);
    assertThat(flagged()).isEqualTo(2);
    assertThat(runtime.metrics().counter(MetricDef.AGENT_TAIL_SPANS_DROPPED, "cap").value())
        .isEqualTo(2);
  }

  private void install(Map<String, String> settings) {
    runtime = TestRuntime.install(time, settings, collector.endpoint());
  }

  private long nowMillis() {
    return time.epochNanos() / 1_000_000L;
  }

  private long flagged() {
    return runtime.metrics().counter(MetricDef.CONSUMER_TAIL_RECORDS_FLAGGED, TOPIC, "").value();
  }

  private ConsumerTopicInstruments instruments() {
    return ((ConsumerState) consumer.klat$state()).instruments(TOPIC);
  }

  /**
   * The spans received until one matches {@code last}, and those of the requests that came within
   * 300 ms after it: tail spans and sampled spans may leave in separate requests.
   */
  private List<Span> spansThrough(Predicate<Span> last) throws InterruptedException {
    List<Span> spans = new ArrayList<>();
    boolean seen = false;
    long deadline = System.nanoTime() + RECEIVE_TIMEOUT_MILLIS * 1_000_000L;
    while (System.nanoTime() < deadline) {
      TestCollector.Received request = collector.nextTraces(seen ? 300 : 100);
      if (request == null) {
        if (seen) {
          return spans;
        }
        continue;
      }
      for (ResourceSpans resource : request.traces().getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            spans.add(span);
            seen |= last.test(span);
          }
        }
      }
    }
    assertThat(seen).as("the span awaited arrived").isTrue();
    return spans;
  }

  private static Predicate<Span> offset(long offset) {
    return span -> offsetOf(span) == offset;
  }

  private static long offsetOf(Span span) {
    return number(attributes(span), SpanAttributes.MESSAGING_KAFKA_OFFSET);
  }

  private static Map<String, AnyValue> attributes(Span span) {
    Map<String, AnyValue> attributes = new HashMap<>();
    for (KeyValue attribute : span.getAttributesList()) {
      attributes.put(attribute.getKey(), attribute.getValue());
    }
    return attributes;
  }

  private static String string(Map<String, AnyValue> attributes, AttributeDef key) {
    AnyValue value = attributes.get(key.name());
    return value == null ? null : value.getStringValue();
  }

  private static long number(Map<String, AnyValue> attributes, AttributeDef key) {
    AnyValue value = attributes.get(key.name());
    assertThat(value).as(key.name()).isNotNull();
    return value.getIntValue();
  }

  private TestStateHolder respond() {
    TestStateHolder request = new TestStateHolder();
    ConsumerHooks.onFetchRequestCreated(request);
    time.advanceMillis(1);
    ConsumerHooks.onFetchResponse(request);
    TestStateHolder completedFetch = new TestStateHolder();
    ConsumerHooks.onCompletedFetchCreated(completedFetch);
    ConsumerHooks.onFetchResponseDone();
    return completedFetch;
  }

  /** A poll as kafka-clients up to 3.4 run it: the records read at poll exit. */
  @SafeVarargs
  private void poll(TestStateHolder completedFetch, ConsumerRecord<String, String>... records) {
    ConsumerHooks.onPollEnter(consumer);
    ConsumerHooks.onRecordsFetched(
        completedFetch, PARTITION, null, new ArrayList<>(List.of(records)));
    ConsumerHooks.onPollExit(consumer, null);
  }

  /** A poll as kafka-clients 3.5 and later run it: each record noted as it is parsed. */
  @SafeVarargs
  private void pollParsed(
      TestStateHolder completedFetch, ConsumerRecord<String, String>... records) {
    ConsumerHooks.onPollEnter(consumer);
    List<ConsumerRecord<String, String>> list = new ArrayList<>();
    for (ConsumerRecord<String, String> record : records) {
      ConsumerHooks.onRecordParsed(record, completedFetch);
      list.add(record);
    }
    ConsumerHooks.onRecordsFetched(completedFetch, PARTITION, null, list);
    ConsumerHooks.onPollExit(consumer, null);
  }

  private static RecordHeaders headers() {
    return new RecordHeaders();
  }

  /** The headers of a record the producer agent did not sample: its timing header only. */
  private static RecordHeaders stamped(long sendMillis) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(HeaderNames.TIMING, TimingHeader.encode(sendMillis * 1000L, 5L, false));
    return headers;
  }

  /** The headers of a sampled record: timing and trace context. */
  private static RecordHeaders sampled(long sendMillis) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(HeaderNames.TIMING, TimingHeader.encode(sendMillis * 1000L, 5L, true));
    headers.add(
        HeaderNames.TRACEPARENT,
        TraceIds.traceparentBytes(
            TraceIds.randomNonZeroLong(),
            TraceIds.randomNonZeroLong(),
            TraceIds.randomNonZeroLong(),
            true));
    return headers;
  }

  private static ConsumerRecord<String, String> record(
      long offset, long timestampMillis, RecordHeaders headers) {
    return record(offset, timestampMillis, TimestampType.CREATE_TIME, headers);
  }

  private static ConsumerRecord<String, String> appendRecord(
      long offset, long timestampMillis, RecordHeaders headers) {
    return record(offset, timestampMillis, TimestampType.LOG_APPEND_TIME, headers);
  }

  private static ConsumerRecord<String, String> record(
      long offset, long timestampMillis, TimestampType type, RecordHeaders headers) {
    return new ConsumerRecord<>(
        TOPIC,
        PARTITION_NUMBER,
        offset,
        timestampMillis,
        type,
        1,
        1,
        "k",
        "v",
        headers,
        Optional.empty());
  }
}
