package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.ManualTime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.metrics.LatencyHistogram;
import dev.klat.model.HeaderNames;
import dev.klat.model.MetricDef;
import dev.klat.model.TimingHeader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Drives the consumer hooks in order, as the woven kafka-clients would, without an agent. */
class ConsumerHooksTest {

  private static final String TOPIC = "orders";
  private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

  private final ManualTime time = new ManualTime();
  private AgentRuntime runtime;
  private final TestStateHolder consumer = new TestStateHolder();

  @BeforeEach
  void install() {
    runtime = TestRuntime.install(time);
  }

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void recordsThatWaitedInTheBufferKeepTheResponseThatBroughtThem() {
    TestStateHolder completedFetch = respond();
    time.advanceMillis(30);
    poll(completedFetch, record(0, System.currentTimeMillis(), new RecordHeaders()));
    time.advanceMillis(30);
    poll(completedFetch, record(1, System.currentTimeMillis(), new RecordHeaders()));

    LatencyHistogram buffer = histogram(MetricDef.CONSUMER_BUFFER_LATENCY);
    LatencyHistogram fetch = histogram(MetricDef.CONSUMER_FETCH_LATENCY);
    assertThat(buffer.count()).isEqualTo(2);
    assertThat(fetch.count()).isEqualTo(2);
    // Both polls measure from the one response: at least 30 ms and 60 ms.
    assertThat(buffer.snapshot().sumSeconds()).isGreaterThanOrEqualTo(0.090);
    assertThat(fetch.snapshot().sumSeconds()).isLessThan(0.030);
  }

  @Test
  void invalidHeadersAreCountedByReasonAndTheTimestampIsUsed() {
    RecordHeaders truncated = new RecordHeaders();
    truncated.add(HeaderNames.TIMING, new byte[] {1, 1, 0});
    RecordHeaders future = new RecordHeaders();
    future.add(
        HeaderNames.TIMING,
        TimingHeader.encode(System.currentTimeMillis() * 1000L + 86_400_000_000L, 5L, true));
    RecordHeaders garbageContext = new RecordHeaders();
    garbageContext.add(
        HeaderNames.TIMING, TimingHeader.encode(System.currentTimeMillis() * 1000L, 5L, true));
    garbageContext.add(HeaderNames.TRACEPARENT, "00-nope".getBytes(StandardCharsets.US_ASCII));
    long now = System.currentTimeMillis();

    assertThatCode(
            () ->
                poll(
                    respond(),
                    record(0, now, truncated),
                    record(1, now, future),
                    record(2, now, garbageContext)))
        .doesNotThrowAnyException();

    assertThat(invalid("wrong-length")).isEqualTo(1);
    assertThat(invalid("future-time")).isEqualTo(1);
    assertThat(invalid(TimingHeaderReader.REASON_TRACEPARENT_INVALID)).isEqualTo(1);
    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isEqualTo(3);
  }

  @Test
  void aFutureTimestampIsClampedAndCountedNotRecorded() {
    poll(respond(), record(0, System.currentTimeMillis() + 60_000, new RecordHeaders()));

    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isZero();
    assertThat(runtime.metrics().counter(MetricDef.AGENT_DURATIONS_CLAMPED, "P").value())
        .isEqualTo(1);
  }

  @Test
  void recordsOfAPollThatThrewAreNeverReported() {
    TestStateHolder completedFetch = respond();
    ConsumerHooks.onPollEnter(consumer);
    ConsumerHooks.onRecordsFetched(
        completedFetch,
        PARTITION,
        null,
        List.of(record(0, System.currentTimeMillis(), new RecordHeaders())));
    // No exit: poll() threw. The next poll starts clean.
    poll(completedFetch);

    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isZero();
  }

  @Test
  void recordsNotedAsTheyWereParsedCountAsIfReadAtPollExit() {
    RecordHeaders truncated = new RecordHeaders();
    truncated.add(HeaderNames.TIMING, new byte[] {1, 1, 0});
    RecordHeaders valid = new RecordHeaders();
    valid.add(
        HeaderNames.TIMING, TimingHeader.encode(System.currentTimeMillis() * 1000L, 5L, false));
    long now = System.currentTimeMillis();
    TestStateHolder completedFetch = respond();

    pollParsed(
        completedFetch,
        record(0, now, new RecordHeaders()),
        record(1, now, truncated),
        record(2, now + 60_000, new RecordHeaders()),
        record(3, now, valid),
        record(4, now - 5, new RecordHeaders()));

    // Every record but the future one; the truncated header falls back to the timestamp.
    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isEqualTo(4);
    assertThat(histogram(MetricDef.CONSUMER_BUFFER_LATENCY).count()).isEqualTo(5);
    assertThat(invalid("wrong-length")).isEqualTo(1);
    assertThat(runtime.metrics().counter(MetricDef.AGENT_DURATIONS_CLAMPED, "P").value())
        .isEqualTo(1);
  }

  @Test
  void notesThatDoNotMatchTheListAreDroppedAndTheListIsReadAtPollExit() {
    long now = System.currentTimeMillis();
    TestStateHolder completedFetch = respond();
    ConsumerHooks.onPollEnter(consumer);
    // Three records parsed, but the list handed out has two (fetchRecords threw after the third
    // was parsed, in a real consumer): the notes are not trusted.
    List<ConsumerRecord<String, String>> list = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ConsumerRecord<String, String> record = record(i, now, new RecordHeaders());
      ConsumerHooks.onRecordParsed(record, completedFetch);
      if (i < 2) {
        list.add(record);
      }
    }
    ConsumerHooks.onRecordsFetched(completedFetch, PARTITION, null, list);
    ConsumerHooks.onPollExit(consumer, null);

    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isEqualTo(2);
  }

  @Test
  void aFetchHandingOutTwoListsHasBothNoted() {
    long now = System.currentTimeMillis();
    TestStateHolder completedFetch = respond();
    PollContext context = PollContext.get();
    ConsumerHooks.onPollEnter(consumer);
    for (int list = 0; list < 2; list++) {
      List<ConsumerRecord<String, String>> records = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        ConsumerRecord<String, String> record = record(2 * list + i, now, new RecordHeaders());
        ConsumerHooks.onRecordParsed(record, completedFetch);
        records.add(record);
      }
      ConsumerHooks.onRecordsFetched(completedFetch, PARTITION, null, records);
    }

    // The second list comes from the same CompletedFetch and is noted afresh, not read again.
    assertThat(context.preRead[0]).isTrue();
    assertThat(context.preRead[1]).isTrue();
    assertThat(context.e2eStartsTo[1] - context.e2eStartsFrom[1]).isEqualTo(2);
    ConsumerHooks.onPollExit(consumer, null);
    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isEqualTo(4);
  }

  @Test
  void recordsOfAFetchWithoutAStampAreReadAtPollExit() {
    long now = System.currentTimeMillis();
    // A response handled before the agent saw its request: the CompletedFetch has no stamp.
    TestStateHolder completedFetch = new TestStateHolder();
    PollContext context = PollContext.get();
    ConsumerHooks.onPollEnter(consumer);
    List<ConsumerRecord<String, String>> list = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ConsumerRecord<String, String> record = record(i, now, new RecordHeaders());
      ConsumerHooks.onRecordParsed(record, completedFetch);
      list.add(record);
    }
    assertThat(context.startCount).isZero();
    ConsumerHooks.onRecordsFetched(completedFetch, PARTITION, null, list);
    assertThat(context.preRead[0]).isFalse();
    ConsumerHooks.onPollExit(consumer, null);

    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isEqualTo(3);
    assertThat(histogram(MetricDef.CONSUMER_BUFFER_LATENCY).count()).isZero();
  }

  @Test
  void notesOfAFetchWhoseListNeverCameAreDroppedWhenTheNextFetchParses() {
    long now = System.currentTimeMillis();
    TestStateHolder abandoned = respond();
    TestStateHolder completedFetch = respond();
    PollContext context = PollContext.get();
    ConsumerHooks.onPollEnter(consumer);
    // fetchRecords of the first fetch threw after parsing two records: no list for them.
    ConsumerHooks.onRecordParsed(record(0, now, new RecordHeaders()), abandoned);
    ConsumerHooks.onRecordParsed(record(1, now, new RecordHeaders()), abandoned);
    ConsumerRecord<String, String> record = record(2, now, new RecordHeaders());
    ConsumerHooks.onRecordParsed(record, completedFetch);
    ConsumerHooks.onRecordsFetched(completedFetch, PARTITION, null, List.of(record));

    assertThat(context.preRead[0]).isTrue();
    assertThat(context.startCount).isEqualTo(1);
    ConsumerHooks.onPollExit(consumer, null);
    assertThat(histogram(MetricDef.E2E_LATENCY).count()).isEqualTo(1);
  }

  @Test
  void recordsParsedOutsideAPollAreNotNoted() {
    // Without the poll() hooks (woven elsewhere, or skipped), nothing would ever clear the notes.
    poll(respond());
    TestStateHolder completedFetch = respond();
    ConsumerRecord<String, String> record =
        record(0, System.currentTimeMillis(), new RecordHeaders());
    ConsumerHooks.onRecordParsed(record, completedFetch);
    ConsumerHooks.onRecordsFetched(completedFetch, PARTITION, null, List.of(record));

    assertThat(PollContext.get().startCount).isZero();
    assertThat(PollContext.get().size).isZero();
  }

  @Test
  void spansAreCappedPerSecondAndTheRestIsStillMeasured() {
    SpanRateLimiter limiter = new SpanRateLimiter(10, 0L);
    int granted = 0;
    for (int i = 0; i < 100; i++) {
      if (limiter.tryAcquire(0L)) {
        granted++;
      }
    }
    // A burst of one second's worth (plus the first), then one per 100 ms.
    assertThat(granted).isEqualTo(11);
    assertThat(limiter.tryAcquire(100_000_000L)).isTrue();
    assertThat(limiter.tryAcquire(100_000_000L)).isFalse();
  }

  @Test
  void aResponseTheHeartbeatThreadHandledWhileTheRequesterWaitedInPollWasReadPromptly()
      throws Exception {
    ConsumerHooks.onPollEnter(consumer);
    TestStateHolder request = new TestStateHolder();
    ConsumerHooks.onFetchRequestCreated(request);
    time.advanceMillis(5);
    assertThat(respondOnAnotherThread(request).readPromptly).isTrue();
    ConsumerHooks.onPollExit(consumer, null);
  }

  @Test
  void aResponseTheHeartbeatThreadHandledWhileTheApplicationWasBusyWasReadLate() throws Exception {
    ConsumerHooks.onPollEnter(consumer);
    TestStateHolder request = new TestStateHolder();
    ConsumerHooks.onFetchRequestCreated(request);
    ConsumerHooks.onPollExit(consumer, null);
    time.advanceMillis(5);
    assertThat(respondOnAnotherThread(request).readPromptly).isFalse();
  }

  /** The response handled as a classic consumer's heartbeat thread handles it. */
  private static FetchStamp respondOnAnotherThread(TestStateHolder request) throws Exception {
    TestStateHolder completedFetch = new TestStateHolder();
    Thread heartbeat =
        new Thread(
            () -> {
              ConsumerHooks.onFetchResponse(request);
              ConsumerHooks.onCompletedFetchCreated(completedFetch);
              ConsumerHooks.onFetchResponseDone();
            });
    heartbeat.start();
    heartbeat.join();
    return (FetchStamp) completedFetch.klat$state();
  }

  private TestStateHolder respond() {
    TestStateHolder request = new TestStateHolder();
    ConsumerHooks.onFetchRequestCreated(request);
    ConsumerHooks.onFetchResponse(request);
    TestStateHolder completedFetch = new TestStateHolder();
    ConsumerHooks.onCompletedFetchCreated(completedFetch);
    ConsumerHooks.onFetchResponseDone();
    return completedFetch;
  }

  @SafeVarargs
  private void poll(TestStateHolder completedFetch, ConsumerRecord<String, String>... records) {
    ConsumerHooks.onPollEnter(consumer);
    if (records.length > 0) {
      List<ConsumerRecord<String, String>> list = new ArrayList<>(List.of(records));
      ConsumerHooks.onRecordsFetched(completedFetch, PARTITION, null, list);
    }
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

  private LatencyHistogram histogram(MetricDef metric) {
    return runtime.metrics().histogram(metric, TOPIC, "");
  }

  private long invalid(String reason) {
    return runtime.metrics().counter(MetricDef.AGENT_HEADERS_INVALID, reason).value();
  }

  private static ConsumerRecord<String, String> record(
      long offset, long timestampMillis, RecordHeaders headers) {
    return new ConsumerRecord<>(
        TOPIC,
        0,
        offset,
        timestampMillis,
        TimestampType.CREATE_TIME,
        1,
        1,
        "k",
        "v",
        headers,
        Optional.empty());
  }
}
