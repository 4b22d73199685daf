package dev.klat.collector.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.clienttelemetry.ClientFigure;
import dev.klat.collector.clienttelemetry.ClientInstance;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import dev.klat.model.TimePoint;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The clients' own figures (KIP-714) as evidence: a producer seen through an OpenTelemetry
 * instrumentation whose record queue time splits the {@code produce+publish} rest, and the
 * consumers' fetch latency beside the consumer-side findings. Records as {@link
 * OpenTelemetryDiagnosisTest} builds them.
 */
class ClientTelemetryDiagnosisTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_700_000_000_000_000_000L;
  private static final long WINDOW = 300_000 * MS;
  private static final String TOPIC = "orders";
  private static final String GROUP = "service:billing";
  private static final EstimationMethod SPAN = EstimationMethod.OPENTELEMETRY_SPAN;

  /**
   * A record from an instrumented producer to an instrumented consumer: {@code S} and {@code P}
   * from their spans, {@code L} and {@code H} from leader 1's probe, which timed its produce
   * request ({@code queueMs}, {@code localMs}; -1 untimed).
   */
  private static JoinedBreakdown instrumented(
      long offset,
      double produceAndPublishMs,
      double commitMs,
      double catchUpAndFetchMs,
      double queueMs,
      double localMs) {
    long s = T0 + offset * 1_000 * MS;
    long l = s + (long) (produceAndPublishMs * MS);
    long h = l + (long) (commitMs * MS);
    long p = h + (long) (catchUpAndFetchMs * MS);
    Instants instants =
        Instants.builder()
            .send(s)
            .method(TimePoint.SEND, SPAN)
            .append(l, EstimationMethod.BROKER_PROBE)
            .commit(h, EstimationMethod.BROKER_PROBE)
            .poll(p)
            .method(TimePoint.POLL, SPAN)
            .build();
    return joined(offset, instants, queueMs, localMs, ProducerEvidence.UNKNOWN);
  }

  private static JoinedBreakdown joined(
      long offset,
      Instants instants,
      double queueMs,
      double localMs,
      ProducerEvidence producerEvidence) {
    return new JoinedBreakdown(
        new RecordKey(TOPIC, 0, offset),
        GROUP,
        1,
        offset + 1,
        offset + 1,
        offset + 2,
        Breakdown.compute(instants),
        new ClockOffset("producer", "consumer", 0, 0, 0, 0),
        new ClockOffset("producer", "broker", 0, 0, 0, 0),
        Set.of(),
        false,
        1,
        -1,
        queueMs < 0 ? -1 : (long) (queueMs * MS),
        localMs < 0 ? -1 : (long) (localMs * MS),
        producerEvidence,
        ConsumerEvidence.UNKNOWN,
        Capture.OPENTELEMETRY);
  }

  /** 95 quick records and 5 slow ones, through the aggregate's ring, diagnosed. */
  private static DiagnosisReport diagnose(
      List<JoinedBreakdown> quick,
      List<JoinedBreakdown> slow,
      BrokerTimings brokers,
      List<ClientInstance> clients) {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    quick.forEach(b -> recent.add(b, 0));
    slow.forEach(b -> recent.add(b, 0));
    List<TailRecord> tail = recent.tail(TOPIC, GROUP, WINDOW, 1, Diagnosis.MIN_TAIL_RECORDS);
    return Diagnosis.diagnose(
        recent.summarise(TOPIC, GROUP, WINDOW, 1),
        tail,
        brokers,
        CommitWaits.NONE,
        T0,
        WINDOW,
        clients);
  }

  private static List<JoinedBreakdown> quick(double queueMs, double localMs) {
    return java.util.stream.LongStream.range(0, 95)
        .mapToObj(o -> instrumented(o, 5, 1, 5, queueMs, localMs))
        .toList();
  }

  private static List<JoinedBreakdown> slow(
      double produceAndPublishMs,
      double commitMs,
      double catchUpAndFetchMs,
      double queueMs,
      double localMs) {
    return java.util.stream.LongStream.range(95, 100)
        .mapToObj(
            o ->
                instrumented(o, produceAndPublishMs, commitMs, catchUpAndFetchMs, queueMs, localMs))
        .toList();
  }

  private static ClientInstance client(
      String clientId, String role, String software, ClientFigure figure, double avg, double max) {
    return new ClientInstance(
        "id-" + clientId,
        clientId,
        software,
        software.equals("apache-kafka-java") ? "4.4.0" : "2.10.0",
        "User:alice",
        role,
        role.equals(ClientInstance.CONSUMER) ? GROUP : null,
        List.of(),
        1,
        false,
        0,
        Map.of(figure, new ClientInstance.Aggregate(avg, max)));
  }

  @Test
  void aProducersRecordQueueTimeSplitsTheProduceAndPublishRestAsItsBatching() {
    List<ClientInstance> clients =
        List.of(
            client(
                "java-orders",
                ClientInstance.PRODUCER,
                "apache-kafka-java",
                ClientFigure.RECORD_QUEUE_TIME,
                300,
                410),
            client(
                "java-quiet",
                ClientInstance.PRODUCER,
                "apache-kafka-java",
                ClientFigure.RECORD_QUEUE_TIME,
                1,
                2));
    DiagnosisReport without =
        diagnose(quick(0.1, 0.2), slow(400, 1, 5, 0.1, 0.2), BrokerTimings.NONE, List.of());
    DiagnosisReport with =
        diagnose(quick(0.1, 0.2), slow(400, 1, 5, 0.1, 0.2), BrokerTimings.NONE, clients);

    Finding rest = without.findings().get(0);
    assertThat(rest.knob()).startsWith("in the producer or on the way to");
    Finding batching =
        with.findings().stream()
            .filter(f -> f.knob().equals("batching in producer java-orders"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no batching finding in " + with));
    assertThat(batching.segment()).isEqualTo("produce+publish");
    // The client's average, within the rest, weighed as the rest is.
    assertThat(batching.explainedSeconds()).isCloseTo(0.3, Offset.offset(1e-9));
    assertThat(batching.tailShare())
        .isCloseTo(rest.tailShare() * 0.3 / rest.explainedSeconds(), Offset.offset(1e-9));
    assertThat(batching.suggestion())
        .startsWith(
            "producer java-orders (apache-kafka-java 4.4.0) reports record queue time avg 300.0"
                + " ms, max 410.0 ms: most of produce waits in its batching")
        .contains("linger.ms");
    // The rest keeps its own finding, naming both producers' figures, the larger first.
    Finding restWith =
        with.findings().stream().filter(f -> f.knob().equals(rest.knob())).findFirst().get();
    assertThat(restWith.tailShare()).isEqualTo(rest.tailShare());
    assertThat(restWith.evidence().keySet())
        .filteredOn(k -> k.contains("its own record queue time"))
        .containsExactly(
            "producer java-orders (apache-kafka-java 4.4.0), its own record queue time (KIP-714:"
                + " avg and max over its metric window, not per record)",
            "producer java-quiet (apache-kafka-java 4.4.0), its own record queue time (KIP-714:"
                + " avg and max over its metric window, not per record)");
    assertThat(with.findings())
        .isSortedAccordingTo(java.util.Comparator.comparingDouble(Finding::tailShare).reversed());
  }

  // librdkafka pushes, as record queue time, a built request's wait for the socket
  // (rdkafka_telemetry_encode.c reads the broker thread's outbuf latency): never its linger. With
  // linger.ms=100 a real librdkafka 2.12.0 producer pushed 0.05-1.2 ms (ClientTelemetryIT).
  @Test
  void aLibrdkafkaProducersQueueTimeIsEvidenceNeverBatching() {
    List<ClientInstance> clients =
        List.of(
            client(
                "go-orders",
                ClientInstance.PRODUCER,
                "librdkafka",
                ClientFigure.RECORD_QUEUE_TIME,
                300,
                410));
    DiagnosisReport with =
        diagnose(quick(0.1, 0.2), slow(400, 1, 5, 0.1, 0.2), BrokerTimings.NONE, clients);

    assertThat(with.findings()).noneMatch(f -> f.knob().startsWith("batching in producer"));
    Finding rest =
        with.findings().stream()
            .filter(f -> f.knob().startsWith("in the producer or on the way to"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no produce+publish rest in " + with));
    assertThat(rest.evidence().keySet())
        .contains(
            "producer go-orders (librdkafka 2.10.0), its own record queue time (librdkafka: a"
                + " built produce request's wait for the socket, not its linger) (KIP-714: avg and"
                + " max over its metric window, not per record)");
  }

  @Test
  void aQueueTimeLongerThanTheRestExplainsNoMoreThanTheRest() {
    List<ClientInstance> clients =
        List.of(
            client(
                "java-orders",
                ClientInstance.PRODUCER,
                "apache-kafka-java",
                ClientFigure.RECORD_QUEUE_TIME,
                5_000,
                9_000));
    DiagnosisReport with =
        diagnose(quick(0.1, 0.2), slow(400, 1, 5, 0.1, 0.2), BrokerTimings.NONE, clients);
    Finding batching =
        with.findings().stream()
            .filter(f -> f.knob().equals("batching in producer java-orders"))
            .findFirst()
            .orElseThrow();
    Finding rest =
        with.findings().stream()
            .filter(f -> f.knob().startsWith("in the producer"))
            .findFirst()
            .get();
    assertThat(batching.explainedSeconds()).isEqualTo(rest.explainedSeconds());
    assertThat(batching.suggestion()).contains("linger.ms and batch.size");
  }

  @Test
  void consumersFetchLatencyIsEvidenceBesideTheConsumerSideFindings() {
    List<ClientInstance> clients =
        List.of(
            client(
                "billing-1",
                ClientInstance.CONSUMER,
                "librdkafka",
                ClientFigure.FETCH_LATENCY,
                480,
                502));
    DiagnosisReport with =
        diagnose(quick(0.1, 0.2), slow(5, 1, 400, 0.1, 0.2), BrokerTimings.NONE, clients);
    Finding consumerSide =
        with.findings().stream()
            .filter(f -> f.segment().equals("catch-up+fetch"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no catch-up+fetch finding in " + with));
    assertThat(consumerSide.evidence())
        .containsEntry(
            "consumer billing-1 (librdkafka 2.10.0), its own fetch latency (KIP-714: avg and max"
                + " over its metric window, not per record)",
            "avg 480.0 ms, max 502.0 ms");
    // No producer figures: the produce side is as before.
    assertThat(with.findings()).noneMatch(f -> f.knob().startsWith("batching in producer"));
  }
}
