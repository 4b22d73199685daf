package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.EvidenceAttributes;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The agent on real consumers: forked JVMs run {@link ConsumerApp} with {@code
 * -javaagent:klat-agent.jar} against a real broker, for the classic consumer and, from 3.9, the new
 * consumer protocol, and a real OTLP receiver in this test checks what arrives.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ConsumerAgentIT {

  private static final long MILLI = 1_000_000L;

  @RegisterExtension
  static final KafkaClusterExtension kafka = KafkaClusterExtension.sharedBroker();

  /**
   * The application measures each record's send-to-receive time on its own clock; klat's {@code P -
   * S} of the same records and its {@code klat.e2e.latency} percentiles must agree within 1 ms.
   */
  @ParameterizedTest(name = "kafka-clients {0}, group.protocol={1}")
  @CsvSource({
    "2.8.2, classic",
    "3.6.2, classic",
    "3.9.2, classic",
    "3.9.2, consumer",
    "4.4.0, classic",
    "4.4.0, consumer"
  })
  void endToEndLatencyAgreesWithTheApplicationsClock(String clientsVersion, String protocol)
      throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "e2e-" + clientsVersion.replace('.', '-') + "-" + protocol;
    String group = topic + "-group";
    cluster.createTopic(TopicSpec.named(topic).partitions(2).build());
    cluster.createTopic(TopicSpec.named(topic + "-warmup").partitions(2).build());
    // 1,000 records: the p99 is then the 10th largest, so that one pause of this shared machine
    // between klat's instant and the application's (a preempted thread) does not decide it.
    int records = 1000;

    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Result app =
          AppJvm.run(
              clientsVersion,
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              ConsumerApp.class,
              "e2e",
              cluster.bootstrapServers(),
              topic,
              group,
              protocol,
              Integer.toString(records),
              "3",
              AppJvm.LINGER_MILLIS);
      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.value("RECEIVED")).isEqualTo(Integer.toString(records));
      assertThat(app.output()).doesNotContain("Exception").contains("klat agent started");
      assertThat(receiver.errors()).isEmpty();

      Map<String, Long> appLatencyByPosition = new HashMap<>();
      app.output()
          .lines()
          .filter(line -> line.startsWith("LAT "))
          .forEach(
              line -> {
                String[] parts = line.split(" ");
                appLatencyByPosition.put(parts[1], Long.parseLong(parts[2]));
              });
      assertThat(appLatencyByPosition).hasSize(records);

      List<Span> consumerSpans = awaitConsumerSpans(receiver, records + 200);
      Map<String, Span> producerSpanByPosition = new HashMap<>();
      for (Span span : receiver.spans()) {
        if (span.getKind() == Span.SpanKind.SPAN_KIND_PRODUCER
            && topic.equals(
                OtlpReceiver.stringAttribute(
                    span, SpanAttributes.MESSAGING_DESTINATION_NAME.name()))) {
          producerSpanByPosition.put(position(span), span);
        }
      }
      int aboveHighWatermark = 0;
      int readPromptlyCount = 0;
      int withPace = 0;
      int withBothPartitions = 0;
      int foundUncommitted = 0;
      int askedBeforeCommit = 0;
      List<Long> klatLatencies = new ArrayList<>();
      List<Long> appLatencies = new ArrayList<>();
      consumerSpans.removeIf(
          span ->
              !topic.equals(
                  OtlpReceiver.stringAttribute(
                      span, SpanAttributes.MESSAGING_DESTINATION_NAME.name())));
      for (Span span : consumerSpans) {
        String position = position(span);
        assertThat(appLatencyByPosition).containsKey(position);
        assertThat(
                OtlpReceiver.stringAttribute(
                    span, SpanAttributes.MESSAGING_DESTINATION_NAME.name()))
            .isEqualTo(topic);
        assertThat(
                OtlpReceiver.stringAttribute(
                    span, SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name()))
            .isEqualTo(group);
        assertThat(OtlpReceiver.stringAttribute(span, SpanAttributes.MESSAGING_CLIENT_ID.name()))
            .isEqualTo("it-consumer");
        long send = OtlpReceiver.longAttribute(span, SpanAttributes.SEND_TIME.name());
        long poll = OtlpReceiver.pollTimeAfterFetch(span);
        long fetchRequest =
            OtlpReceiver.longAttribute(span, SpanAttributes.FETCH_REQUEST_TIME.name());
        assertThat(send).isLessThan(poll);
        long offset =
            OtlpReceiver.longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name());
        long hw = OtlpReceiver.longAttribute(span, SpanAttributes.PARTITION_HIGH_WATERMARK.name());
        // The broker reports the high watermark it read before reading the log (Partition.
        // fetchRecords), so an append racing with the fetch can leave it at or below the offset.
        assertThat(hw).as("high watermark of %s", position).isPositive();
        if (hw > offset) {
          aboveHighWatermark++;
        }
        assertThat(OtlpReceiver.stringAttribute(span, SpanAttributes.RECORD_TIMESTAMP_TYPE.name()))
            .isEqualTo("CreateTime");
        // Read from the client's internals, a different path in nearly every version tested here:
        // ConsumerApp keeps the default fetch.min.bytes and sets fetch.max.wait.ms=100.
        assertThat(OtlpReceiver.longAttribute(span, SpanAttributes.CONSUMER_FETCH_MIN_BYTES.name()))
            .isEqualTo(1L);
        assertThat(
                OtlpReceiver.longAttribute(
                    span, EvidenceAttributes.CONSUMER_FETCH_MAX_WAIT_MS.name()))
            .isEqualTo(100L);
        assertThat(
                OtlpReceiver.longAttribute(
                    span, EvidenceAttributes.CONSUMER_MAX_POLL_RECORDS.name()))
            .isPositive();
        // The application's pace, on every span but those of the first poll.
        Long pollGap =
            OtlpReceiver.longAttribute(span, EvidenceAttributes.CONSUMER_POLL_GAP_NS.name());
        if (pollGap != null) {
          assertThat(pollGap).as("poll gap of %s", position).isNotNegative();
          assertThat(
                  OtlpReceiver.longAttribute(
                      span, EvidenceAttributes.CONSUMER_PREVIOUS_POLL_RECORDS.name()))
              .as("records of the poll before %s", position)
              .isNotNull()
              .isNotNegative();
          withPace++;
        }
        // The topic has two partitions and this consumer is the group's only member (while the
        // group forms, a poll may come when one of them is assigned).
        Long assigned =
            OtlpReceiver.longAttribute(
                span, EvidenceAttributes.CONSUMER_ASSIGNED_PARTITIONS.name());
        assertThat(assigned).as("assigned partitions of %s", position).isBetween(1L, 2L);
        if (assigned == 2L) {
          withBothPartitions++;
        }
        Boolean readPromptly =
            OtlpReceiver.boolAttribute(span, SpanAttributes.FETCH_RESPONSE_READ_PROMPTLY.name());
        assertThat(readPromptly).as("read_promptly of %s", position).isNotNull();
        if (readPromptly) {
          readPromptlyCount++;
        }
        // The consumer span continues the producer's trace, as a child of its span.
        Span producerSpan = producerSpanByPosition.get(position);
        assertThat(producerSpan).as("producer span at %s", position).isNotNull();
        Long uncommitted =
            OtlpReceiver.longAttribute(span, SpanAttributes.RECORD_UNCOMMITTED_TIME.name());
        if (uncommitted != null) {
          // The response that found the record uncommitted came before the fetch that brought it,
          // and before the record was committed: the producer (acks=all, same host) was answered
          // after the commit. The response and the acknowledgement travel from the same leader,
          // so only their scheduling on this host can put the response later: 24.2 ms once, in a
          // CI run on JDK 25 with two cores shared by the broker and both clients.
          assertThat(uncommitted).as("uncommitted_time of %s", position).isLessThan(fetchRequest);
          long ack = OtlpReceiver.longAttribute(producerSpan, SpanAttributes.ACK_TIME.name());
          assertThat(uncommitted - ack)
              .as("uncommitted_time after the ack of %s", position)
              .isLessThan(50 * MILLI);
          foundUncommitted++;
          if (fetchRequest - uncommitted <= 2 * MILLI) {
            askedBeforeCommit++;
          }
        }
        assertThat(span.getTraceId()).isEqualTo(producerSpan.getTraceId());
        assertThat(span.getParentSpanId()).isEqualTo(producerSpan.getSpanId());
        klatLatencies.add(poll - send);
        appLatencies.add(appLatencyByPosition.get(position));
      }
      assertThat(consumerSpans).hasSize(records);
      assertThat(aboveHighWatermark).isGreaterThanOrEqualTo(records * 9 / 10);
      System.out.printf(
          "kafka-clients %s %s: %d of %d responses read promptly; %d records found uncommitted by"
              + " the previous response of their partition, %d of them asked for within 2 ms of"
              + " it%n",
          clientsVersion,
          protocol,
          readPromptlyCount,
          records,
          foundUncommitted,
          askedBeforeCommit);
      // The application polls in a tight loop, a record every 3 ms over 3 partitions: the
      // consumer waits for nearly every record, and the previous response of its partition is
      // 9 ms old when the producer sends it. The fetch that brings it follows the response of
      // another partition, so within 2 ms of its own partition's only when that response came
      // late or carried several partitions.
      assertThat(withPace).as("spans with the application's pace").isGreaterThan(records / 2);
      assertThat(withBothPartitions)
          .as("spans whose consumer had both partitions")
          .isGreaterThan(records / 2);
      assertThat(foundUncommitted).isGreaterThan(records / 2);
      assertThat(askedBeforeCommit).isPositive();
      if (protocol.equals("consumer")) {
        // The new consumer's network thread reads every response as it arrives.
        assertThat(readPromptlyCount).isEqualTo(records);
      } else {
        // The application polls in a tight loop: a response comes while a poll() waits for it (and
        // is handled by that thread or by the heartbeat thread), or is read at the start of a
        // poll() that began right after the last (99.7 to 100% of them in a run of 2026-11-23, by
        // version; 97.4 to 99.4% before heartbeat-thread reads counted).
        assertThat(readPromptlyCount).isGreaterThan(records * 9 / 10);
      }
      long appP50 = percentile(appLatencies, 0.50);
      long appP99 = percentile(appLatencies, 0.99);
      int differingRecords = 0;
      for (int i = 0; i < appLatencies.size(); i++) {
        if (Math.abs(appLatencies.get(i) - klatLatencies.get(i)) > MILLI) {
          differingRecords++;
        }
      }
      String summary =
          String.format(
              "app p50 %.3f ms p99 %.3f ms, klat spans p50 %.3f ms p99 %.3f ms;"
                  + " records whose app and klat latencies differ by more than 1 ms: %d",
              appP50 / 1e6,
              appP99 / 1e6,
              percentile(klatLatencies, 0.50) / 1e6,
              percentile(klatLatencies, 0.99) / 1e6,
              differingRecords);
      System.out.println(clientsVersion + " " + protocol + ": " + summary);
      // Both measure the same records a few instructions apart (the application's clock reads just
      // outside send() and poll(), the agent's just inside), so they agree per record, except
      // where the thread was descheduled or paused between the two reads: that parts every record
      // of one poll. On two cores shared with a broker, of 1,000 records none differed by more
      // than 1 ms in 50 of 72 logged cases, 1 to 3 in 20, 9 in one and 31 in one (a poll of the
      // slower 3.9.2 new-protocol consumer, about 30 records); once two of them were among the ten
      // slowest, and the p99s differed by 1.1 ms. So the medians agree within 1 ms, the p99s
      // within 5 ms.
      assertThat(Math.abs(percentile(klatLatencies, 0.50) - appP50))
          .as(summary)
          .isLessThanOrEqualTo(MILLI);
      assertThat(Math.abs(percentile(klatLatencies, 0.99) - appP99))
          .as(summary)
          .isLessThanOrEqualTo(5 * MILLI);

      HistogramDataPoint e2e =
          awaitHistogram(
              receiver, MetricDef.E2E_LATENCY.name(), records, "topic", topic, "group", group);
      // The histogram keeps buckets 6.25% wide: its percentile is a bucket, and the application's
      // must lie within it, give or take what the spans may differ from the application by above
      // (1 ms at the median, 5 ms at p99: a loaded CI run had 17 records apart and the p99s 3.6 ms
      // apart, the spans' p99 inside the histogram's bucket).
      for (double quantile : new double[] {0.50, 0.99}) {
        double[] bucket = bucketOf(e2e, quantile);
        long app99or50 = percentile(appLatencies, quantile);
        double toleranceSeconds = quantile == 0.50 ? 0.001 : 0.005;
        assertThat(app99or50 / 1e9)
            .as(
                "app p%d vs klat.e2e.latency bucket (%f, %f] s; %s",
                (int) (quantile * 100), bucket[0], bucket[1], summary)
            .isBetween(bucket[0] - toleranceSeconds, bucket[1] + toleranceSeconds);
      }
      for (MetricDef metric :
          List.of(MetricDef.CONSUMER_FETCH_LATENCY, MetricDef.CONSUMER_BUFFER_LATENCY)) {
        HistogramDataPoint point =
            awaitHistogram(receiver, metric.name(), records, "topic", topic, "group", group);
        assertThat(point.getCount()).as(metric.name()).isEqualTo(records);
      }
    }
  }

  /**
   * The application sleeps after every poll while a producer in another JVM keeps producing: the
   * records wait in the consumer's buffer and its lag grows, while the fetch round trip stays
   * short.
   */
  @ParameterizedTest(name = "kafka-clients 4.4.0, group.protocol={0}")
  @CsvSource({"consumer", "classic"})
  void slowConsumerWaitsInBufferNotInFetch(String protocol) throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "slow-" + protocol;
    String group = topic + "-group";
    cluster.createTopic(TopicSpec.named(topic).partitions(1).build());
    int records = 400;
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      AppJvm.Running consumer =
          AppJvm.start(
              "4.4.0",
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              ConsumerApp.class,
              "slow",
              cluster.bootstrapServers(),
              topic,
              group,
              protocol,
              Integer.toString(records),
              "250",
              AppJvm.LINGER_MILLIS);
      consumer.awaitLine("READY");
      AppJvm.Result producer =
          AppJvm.run(
              "4.4.0",
              AppJvm.agentOptions(receiver.endpoint(), "1.0"),
              ConsumerApp.class,
              "produce",
              cluster.bootstrapServers(),
              topic,
              "-",
              protocol,
              Integer.toString(records),
              "10",
              "0");
      assertThat(producer.exitCode()).as(producer.output()).isZero();
      AppJvm.Result app = consumer.await();
      assertThat(app.exitCode()).as(app.output()).isZero();
      assertThat(app.value("RECEIVED")).isEqualTo(Integer.toString(records));

      HistogramDataPoint buffer =
          awaitHistogram(
              receiver,
              MetricDef.CONSUMER_BUFFER_LATENCY.name(),
              records,
              "topic",
              topic,
              "group",
              group);
      HistogramDataPoint fetch =
          awaitHistogram(
              receiver,
              MetricDef.CONSUMER_FETCH_LATENCY.name(),
              records,
              "topic",
              topic,
              "group",
              group);
      double bufferMeanSeconds = buffer.getSum() / buffer.getCount();
      double fetchMeanSeconds = fetch.getSum() / fetch.getCount();
      double[] bufferP50 = bucketOf(buffer, 0.5);
      double[] fetchP50 = bucketOf(fetch, 0.5);
      String summary =
          String.format(
              "buffer mean %.1f ms p50 <= %.1f ms; fetch mean %.1f ms p50 <= %.1f ms; lag %s",
              bufferMeanSeconds * 1e3,
              bufferP50[1] * 1e3,
              fetchMeanSeconds * 1e3,
              fetchP50[1] * 1e3,
              receiver.gaugeValues(MetricDef.CONSUMER_LAG_TIME.name(), "topic", topic));
      System.out.println("slow consumer " + protocol + ": " + summary);
      // 400 records at 100/s against 20 records per 250 ms (80/s): the backlog grows for 4 s, and
      // each record waits behind up to 400 others in the buffer.
      // Bounds far from the measured values (three runs; classic: buffer 486 to 568 ms against
      // fetch 57 to 105 ms; new protocol: 505 to 637 ms against 7 to 24 ms), so that a loaded
      // machine does not fail them.
      assertThat(bufferMeanSeconds).as(summary).isGreaterThan(0.25);
      assertThat(bufferMeanSeconds).as(summary).isGreaterThan(2 * fetchMeanSeconds);
      assertThat(bufferP50[0]).as(summary).isGreaterThan(fetchP50[1]);
      List<Double> lag =
          receiver.gaugeValues(
              MetricDef.CONSUMER_LAG_TIME.name(), "topic", topic, "group", group, "partition", "0");
      assertThat(Collections.max(lag)).as(summary).isGreaterThan(0.5);

      List<Span> spans = awaitConsumerSpans(receiver, records);
      assertThat(spans).hasSize(records);
      long readPromptly =
          spans.stream()
              .filter(
                  span ->
                      Boolean.TRUE.equals(
                          OtlpReceiver.boolAttribute(
                              span, SpanAttributes.FETCH_RESPONSE_READ_PROMPTLY.name())))
              .count();
      long askedBeforeCommit =
          spans.stream()
              .filter(
                  span -> {
                    Long uncommitted =
                        OtlpReceiver.longAttribute(
                            span, SpanAttributes.RECORD_UNCOMMITTED_TIME.name());
                    return uncommitted != null
                        && OtlpReceiver.longAttribute(
                                    span, SpanAttributes.FETCH_REQUEST_TIME.name())
                                - uncommitted
                            <= 2 * MILLI;
                  })
              .count();
      System.out.printf(
          "slow consumer %s: %d of %d responses read promptly, %d records asked for within 2 ms"
              + " of a response that found them uncommitted%n",
          protocol, readPromptly, records, askedBeforeCommit);
      // Behind from the first seconds, and slow to ask again: no evidence that it waited.
      assertThat(askedBeforeCommit).isLessThan(records / 10);
      if (protocol.equals("consumer")) {
        assertThat(readPromptly).isEqualTo(records);
      } else {
        // The application sleeps outside poll(): responses wait in the socket for the heartbeat
        // thread or the next poll(), and say so, so that the collector does not take their R for
        // the moment the leader answered.
        assertThat(readPromptly).isLessThan(records / 2);
      }
    }
  }

  /**
   * Forged, truncated, oversized, duplicated and garbage klat headers and trace contexts: the
   * application reads every record unchanged, the agent counts each problem by reason and starts a
   * fresh trace where the context is bad.
   */
  @Test
  void badHeadersAreCountedAndIgnored() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "bad-headers";
    // Brokers from 4.0 reject timestamps more than an hour ahead unless the topic allows them.
    cluster.createTopic(
        TopicSpec.named(topic)
            .partitions(1)
            .config("message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE))
            .build());
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      List<String> options = new ArrayList<>(AppJvm.agentOptions(receiver.endpoint(), "0.0"));
      // The producer agent of the same JVM must leave the forged headers alone: it samples none,
      // and does not take the forged timing headers for ones copied from an input (section 9).
      options.add("-Dklat.sampling.max-per-second=0");
      options.add("-Dklat.headers.enabled=false");
      AppJvm.Result app = runBadRecords(cluster, options, topic, "bad-group", "classic");
      assertThat(app.value("ITERATED_TWICE")).isEqualTo("13");
      assertThat(app.value("VIEW"))
          .isEqualTo("forward 13 backward 13 pausedEmpty true wakeup thrown afterWakeup 13");
      assertThat(app.output()).doesNotContain("Exception").doesNotContain("hook");

      // The application reads every record three times (once, then again through ListIterator,
      // then after wakeup()): each read counts.
      long reads = 3;
      Map<String, Long> expected = new HashMap<>();
      expected.put("wrong-length", 1L);
      expected.put("too-long", 1L);
      expected.put("unsupported-version", 1L);
      expected.put("duplicate", 1L);
      expected.put("future-time", 1L);
      expected.put("non-positive-time", 1L);
      expected.put("traceparent-invalid", 2L);
      expected.put("traceparent-missing", 1L);
      for (Map.Entry<String, Long> reason : expected.entrySet()) {
        assertThat(
                awaitCounter(
                    receiver, MetricDef.AGENT_HEADERS_INVALID.name(), "reason", reason.getKey()))
            .as(reason.getKey())
            .isEqualTo(reads * reason.getValue());
      }
      assertThat(awaitCounter(receiver, MetricDef.AGENT_DURATIONS_CLAMPED.name(), "instant", "P"))
          .isGreaterThanOrEqualTo(1L);

      List<Span> spans = awaitConsumerSpans(receiver, (int) (4 * reads));
      assertThat(spans).hasSize((int) (4 * reads));
      String upstreamTrace = "0af7651916cd43dd8448eb211c80319c";
      List<String> traces =
          spans.stream()
              .map(span -> HexFormat.of().formatHex(span.getTraceId().toByteArray()))
              .collect(Collectors.toList());
      assertThat(traces).filteredOn(upstreamTrace::equals).hasSize((int) reads);
      assertThat(traces).filteredOn(trace -> !trace.equals(upstreamTrace)).doesNotHaveDuplicates();
      for (Span span : spans) {
        boolean continued =
            HexFormat.of().formatHex(span.getTraceId().toByteArray()).equals(upstreamTrace);
        assertThat(span.getParentSpanId().isEmpty()).isEqualTo(!continued);
      }
      HistogramDataPoint e2e =
          awaitHistogram(
              receiver,
              MetricDef.E2E_LATENCY.name(),
              12 * reads,
              "topic",
              topic,
              "group",
              "bad-group");
      // Every record but the one from the future: the forged ones fall back to their timestamp.
      assertThat(e2e.getCount()).isEqualTo(12 * reads);
    }
  }

  /**
   * The application's view does not change when the collector is down (new protocol) or klat is
   * disabled (classic): every record arrives, iterable twice, commits succeed.
   */
  @ParameterizedTest(name = "group.protocol={0}, {1}")
  @CsvSource({"consumer, collector-down", "classic, disabled"})
  void consumersWorkUnchangedWithoutACollectorOrWithKlatDisabled(String protocol, String setup)
      throws Exception {
    KafkaCluster cluster = kafka.cluster();
    String topic = "unchanged-" + protocol;
    cluster.createTopic(
        TopicSpec.named(topic)
            .partitions(1)
            .config("message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE))
            .build());
    int closedPort;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    List<String> options =
        new ArrayList<>(AppJvm.agentOptions("http://127.0.0.1:" + closedPort, "0.0"));
    options.add("-Dklat.sampling.max-per-second=0");
    if (setup.equals("disabled")) {
      options.add("-Dklat.enabled=false");
    }
    AppJvm.Result app = runBadRecords(cluster, options, topic, topic + "-group", protocol);
    assertThat(app.value("ITERATED_TWICE")).isEqualTo("13");
    assertThat(app.value("VIEW"))
        .isEqualTo("forward 13 backward 13 pausedEmpty true wakeup thrown afterWakeup 13");
    // The agent says once in a while that the collector is down; the application sees nothing.
    assertThat(app.output().lines().filter(line -> !line.startsWith("[klat-agent]")))
        .noneMatch(line -> line.contains("Exception"));
    assertThat(app.output()).doesNotContain("hook");
  }

  private static String position(Span span) {
    return OtlpReceiver.stringAttribute(
            span, SpanAttributes.MESSAGING_DESTINATION_PARTITION_ID.name())
        + "/"
        + OtlpReceiver.longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name());
  }

  private static List<Span> awaitConsumerSpans(OtlpReceiver receiver, int expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<Span> spans;
    do {
      spans =
          receiver.spans().stream()
              .filter(span -> span.getKind() == Span.SpanKind.SPAN_KIND_CONSUMER)
              .collect(Collectors.toList());
      if (spans.size() >= expected) {
        break;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    return spans;
  }

  private static HistogramDataPoint awaitHistogram(
      OtlpReceiver receiver, String name, long count, String... attributes)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    HistogramDataPoint point = receiver.latestHistogram(name, attributes);
    while ((point == null || point.getCount() < count) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      point = receiver.latestHistogram(name, attributes);
    }
    assertThat(point).as(name).isNotNull();
    return point;
  }

  private static Long awaitCounter(OtlpReceiver receiver, String name, String... attributes)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    Long value = receiver.latestCounter(name, attributes);
    while (value == null && System.nanoTime() < deadline) {
      Thread.sleep(100);
      value = receiver.latestCounter(name, attributes);
    }
    return value;
  }

  /** The nearest-rank percentile. */
  static long percentile(List<Long> values, double quantile) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(quantile * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  /**
   * The bucket {@code (lower, upper]}, in seconds, that holds the nearest-rank percentile of a
   * histogram.
   */
  static double[] bucketOf(HistogramDataPoint point, double quantile) {
    long rank = (long) Math.ceil(quantile * point.getCount());
    long seen = 0;
    for (int i = 0; i < point.getBucketCountsCount(); i++) {
      seen += point.getBucketCounts(i);
      if (seen >= Math.max(1, rank)) {
        double lower = i == 0 ? 0.0 : point.getExplicitBounds(i - 1);
        double upper =
            i < point.getExplicitBoundsCount()
                ? point.getExplicitBounds(i)
                : Double.POSITIVE_INFINITY;
        return new double[] {lower, upper};
      }
    }
    throw new AssertionError("empty histogram");
  }

  // ConsumerApp's "bad" mode consumes the 13 records the test wrote, bad headers among them.
  private static AppJvm.Result runBadRecords(
      KafkaCluster cluster, List<String> options, String topic, String group, String protocol)
      throws Exception {
    AppJvm.Result app =
        AppJvm.run(
            "4.4.0",
            options,
            ConsumerApp.class,
            "bad",
            cluster.bootstrapServers(),
            topic,
            group,
            protocol,
            "0",
            "0",
            "0");
    assertThat(app.exitCode()).as(app.output()).isZero();
    assertThat(app.value("RECEIVED")).isEqualTo("13");
    return app;
  }
}
