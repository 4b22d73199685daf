package dev.klat.collector.correlate.join;

import static dev.klat.collector.correlate.join.Spans.ms;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.instants.Replicas;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import dev.klat.model.TimePoint;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The join of OpenTelemetry instrumentations' record spans (section 10 of the latency model), with
 * each other and with klat's spans, against real probe data; time from an injected clock.
 */
class CorrelatorOtelTest {
  private static final long WINDOW_NANOS = 10_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final TermKey LEADER = new TermKey(1, 0xABCL, 3);

  private long nowNanos = 1_000_000_000L;
  private final ProbeTimelines probes = new ProbeTimelines(100, 100);
  private final List<JoinedBreakdown> out = new ArrayList<>();
  private final List<Long> sources = new ArrayList<>();

  private Correlator correlator(BrokerInstants brokerInstants, long maxPendingBytes) {
    return Correlator.sourced(
        new Correlator.Settings(
            WINDOW_NANOS,
            100,
            60_000_000_000L,
            100,
            maxPendingBytes,
            64,
            Correlator.Settings.DEFAULT_CLOCK_MAX_STEP_NANOS),
        () -> nowNanos,
        brokerInstants,
        (breakdown, source) -> {
          out.add(breakdown);
          sources.add(source);
        });
  }

  private Correlator withProbe() {
    return correlator(
        BrokerInstants.probeFirst(probes, (node, request, at) -> null, Replicas.UNKNOWN, MS),
        Correlator.Settings.DEFAULT_MAX_PENDING_BYTES);
  }

  private void probed(long offset, double appendMs, double commitMs) {
    probes.append(LEADER, "orders", 0, offset, offset, ms(appendMs), ms(appendMs));
    probes.commit(LEADER, "orders", 0, offset, offset, ms(commitMs), ms(commitMs), 2);
  }

  private void windowEnds(Correlator c) {
    nowNanos += WINDOW_NANOS;
    c.expire();
  }

  private static RecordKey key(long offset) {
    return Spans.key(offset);
  }

  private static ProducerRefs refs(long traceIdHigh, long traceIdLow, long spanId) {
    return ProducerRefs.of(
        new long[] {traceIdHigh}, new long[] {traceIdLow}, new long[] {spanId}, 1);
  }

  @Test
  void aJavaAgentProducerWithItsOffsetAndAParentConsumerSplitIntoThreeSegments() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.acceptOtel(OtelSpans.producer(key(5), 7, 8, 70, 0, 20), 3);
    c.acceptOtel(OtelSpans.consumer(key(5), "g", 7, 8, 90, 70, 40, refs(7, 8, 70)), 4);

    assertThat(out).hasSize(1);
    assertThat(sources).containsExactly(4L);
    JoinedBreakdown j = out.get(0);
    assertThat(j.capture()).isEqualTo(Capture.OPENTELEMETRY);
    assertThat(j.group()).isEqualTo("g");
    assertThat(j.producerSpanId()).isEqualTo(70);
    assertThat(j.consumerSpanId()).isEqualTo(90);
    assertThat(j.leaderNodeId()).as("the probe's leader").isEqualTo(1);
    assertThat(j.commitFollowerId()).isEqualTo(2);
    Breakdown b = j.breakdown();
    assertThat(b.produceAndPublishNanos()).isEqualTo(12 * MS);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(3 * MS);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(25 * MS);
    assertThat(b.e2eNanos()).isEqualTo(40 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos());
    assertThat(b.clampCount()).isZero();
    assertThat(b.instants().method(TimePoint.SEND)).isEqualTo(EstimationMethod.OPENTELEMETRY_SPAN);
    assertThat(b.instants().method(TimePoint.ACK)).isEqualTo(EstimationMethod.OPENTELEMETRY_SPAN);
    assertThat(b.instants().method(TimePoint.POLL)).isEqualTo(EstimationMethod.OPENTELEMETRY_SPAN);
    assertThat(b.instants().method(TimePoint.APPEND)).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(b.quality()).isEqualTo(Quality.CLIENT_CLOCK);
    assertThat(b.quality(Segment.COMMIT)).isEqualTo(Quality.EXACT);
    // A consumer is bounded against the leader on one side only: the end to end is flagged.
    assertThat(j.consumerOffset().bounded()).isFalse();
    assertThat(j.e2eFlagged()).isTrue();
    assertThat(j.brokerOffset().toHost()).isEqualTo("broker-1");
    assertThat(j.brokerOffset().fromHost()).isEqualTo("otel-0000000000003333");

    InstrumentedStats s = c.stats().otel();
    assertThat(s.producerSpans()).isEqualTo(1);
    assertThat(s.consumerSpans()).isEqualTo(1);
    assertThat(s.joined()).isEqualTo(1);
    assertThat(c.stats().joined()).isEqualTo(1);
    assertThat(c.stats().producerSpans()).as("klat's spans only").isZero();
    assertThat(s.waitingBytes())
        .as("a record with its producer span remembers no context")
        .isZero();
    windowEnds(c);
    assertThat(out).as("nothing left alone").hasSize(1);
    assertThat(c.stats().unjoinedProducerSpans()).isZero();
  }

  @Test
  void aProducerWithoutOffsetIsPlacedByALinkingConsumerInAnotherTraceInEitherOrder() {
    for (boolean producerFirst : new boolean[] {true, false}) {
      out.clear();
      Correlator c = withProbe();
      probed(6, 10, 14);
      // kafkajs: the producer span has no offset; eachBatch's record span is in its own trace and
      // links the producer's context.
      OtelRecordSpan producer = OtelSpans.producer(null, 1, 2, 11, 0, Double.NaN);
      OtelRecordSpan consumer =
          OtelSpans.consumer(key(6), "service:shop", 3, 4, 21, 0, 50, refs(1, 2, 11));
      if (producerFirst) {
        c.acceptOtel(producer);
        assertThat(c.stats().otel().waitingProducers()).isEqualTo(1);
        c.acceptOtel(consumer);
      } else {
        c.acceptOtel(consumer);
        c.acceptOtel(producer);
      }

      assertThat(out).as("producer first: " + producerFirst).hasSize(1);
      JoinedBreakdown j = out.get(0);
      assertThat(j.key()).isEqualTo(key(6));
      assertThat(j.group()).isEqualTo("service:shop");
      assertThat(j.traceIdHigh()).as("the producer's trace").isEqualTo(1);
      assertThat(j.traceIdLow()).isEqualTo(2);
      Breakdown b = j.breakdown();
      assertThat(b.produceAndPublishNanos()).isEqualTo(10 * MS);
      assertThat(b.nanos(Segment.COMMIT)).isEqualTo(4 * MS);
      assertThat(b.catchUpAndFetchNanos()).isEqualTo(36 * MS);
      assertThat(b.instants().has(TimePoint.ACK)).isFalse();
      InstrumentedStats s = c.stats().otel();
      assertThat(s.placedAfterWaiting()).isEqualTo(producerFirst ? 1 : 0);
      assertThat(s.waitingProducers()).isZero();
      assertThat(c.stats().traceMismatches()).isZero();
      windowEnds(c);
      assertThat(c.stats().otel().unplaced()).isZero();
    }
  }

  @Test
  void aProducerWithoutOffsetIsPlacedByItsChildConsumerInTheSameTrace() {
    Correlator c = withProbe();
    probed(6, 10, 14);
    c.acceptOtel(OtelSpans.producer(null, 1, 2, 11, 0, Double.NaN));
    // The Java agent's process span: the producer is its parent, in the producer's trace.
    c.acceptOtel(OtelSpans.consumer(key(6), "g", 1, 2, 21, 11, 50, refs(1, 2, 11)));

    assertThat(out).hasSize(1);
    assertThat(out.get(0).breakdown().e2eNanos()).isEqualTo(50 * MS);
  }

  @Test
  void aJavaAgentProducerJoinsAKafkajsConsumerInAnotherTraceByItsOffset() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.acceptOtel(OtelSpans.producer(key(5), 7, 8, 70, 0, 20));
    c.acceptOtel(OtelSpans.consumer(key(5), "service:shop", 9, 9, 90, 0, 40, refs(7, 8, 70)));

    assertThat(out).hasSize(1);
    assertThat(c.stats().traceMismatches()).isZero();
  }

  @Test
  void spansTwiceInAnyOrderGiveOneBreakdown() {
    Correlator c = withProbe();
    probed(6, 10, 14);
    OtelRecordSpan producer = OtelSpans.producer(null, 1, 2, 11, 0, Double.NaN);
    OtelRecordSpan consumer =
        OtelSpans.consumer(key(6), "service:shop", 3, 4, 21, 0, 50, refs(1, 2, 11));
    c.acceptOtel(producer);
    c.acceptOtel(producer); // still waiting to be placed
    c.acceptOtel(consumer);
    c.acceptOtel(producer); // placed: a duplicate in its record
    c.acceptOtel(consumer);

    assertThat(out).hasSize(1);
    assertThat(c.stats().otel().duplicates()).isEqualTo(3);
    assertThat(c.stats().duplicates()).as("klat's spans only").isZero();
    windowEnds(c);
    assertThat(out).hasSize(1);
    assertThat(c.stats().otel().unplaced()).isZero();
  }

  @Test
  void klatsProducerSpanSupersedesTheInstrumentationsWhicheverArrivesFirst() {
    for (boolean klatFirst : new boolean[] {true, false}) {
      out.clear();
      Correlator c = withProbe();
      probed(5, 12, 15);
      ProducerSpan klat = Spans.producer(5, 0, 8, 20);
      OtelRecordSpan otel = OtelSpans.producer(key(5), 7, 8, 70, 0, 20);
      if (klatFirst) {
        c.offerProducer(klat);
        c.acceptOtel(otel);
      } else {
        c.acceptOtel(otel);
        c.offerProducer(klat);
      }
      c.acceptOtel(OtelSpans.consumer(key(5), "g", 7, 8, 90, 70, 40, refs(7, 8, 70)));

      assertThat(out).as("klat first: " + klatFirst).hasSize(1);
      JoinedBreakdown j = out.get(0);
      assertThat(j.capture())
          .as("the consumer is an instrumentation's")
          .isEqualTo(Capture.OPENTELEMETRY);
      assertThat(j.producerSpanId()).isEqualTo(klat.spanId());
      Breakdown b = j.breakdown();
      // klat's side keeps its segments: produce and publish apart.
      assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(8 * MS);
      assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(4 * MS);
      assertThat(b.nanos(Segment.COMMIT)).isEqualTo(3 * MS);
      assertThat(b.catchUpAndFetchNanos()).isEqualTo(25 * MS);
      assertThat(b.instants().method(TimePoint.SEND)).isEqualTo(EstimationMethod.MEASURED);
      assertThat(c.stats().otel().superseded()).isEqualTo(1);
      assertThat(c.stats().duplicates()).isZero();
      windowEnds(c);
      assertThat(out).hasSize(1);
    }
  }

  @Test
  void klatsProducerSpanAfterTheInstrumentationsJoinedServesTheGroupsThatComeLater() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.acceptOtel(OtelSpans.producer(key(5), 7, 8, 70, 0, 20));
    c.acceptOtel(OtelSpans.consumer(key(5), "g1", 7, 8, 90, 70, 40, refs(7, 8, 70)));
    c.offerProducer(Spans.producer(5, 0, 8, 20));
    c.acceptOtel(OtelSpans.consumer(key(5), "g2", 7, 8, 91, 70, 45, refs(7, 8, 70)));

    assertThat(out).hasSize(2);
    assertThat(out.get(0).breakdown().isKnown(Segment.PRODUCE))
        .as("g1: the instrumentation's")
        .isFalse();
    assertThat(out.get(1).breakdown().nanos(Segment.PRODUCE)).as("g2: klat's").isEqualTo(8 * MS);
    assertThat(c.stats().otel().superseded()).isEqualTo(1);
    windowEnds(c);
    assertThat(out).hasSize(2);
    assertThat(c.stats().unjoinedProducerSpans()).isZero();
  }

  @Test
  void klatsConsumerSpanSupersedesAWaitingInstrumentationsSpanOfItsGroup() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.acceptOtel(OtelSpans.consumer(key(5), "g", 7, 6, 90, 105, 40, refs(7, 6, 105)));
    c.offerConsumer(Spans.consumer(5, "g", 20, 25, 30));
    c.offerProducer(Spans.producer(5, 0, 8, 20));

    assertThat(out).hasSize(1);
    assertThat(out.get(0).capture()).isEqualTo(Capture.SAMPLED);
    assertThat(out.get(0).breakdown().isKnown(Segment.FETCH)).isTrue();
    assertThat(c.stats().otel().superseded()).isEqualTo(1);
    windowEnds(c);
    assertThat(out).as("the superseded span left no consumer-only record").hasSize(1);
    assertThat(c.stats().otel().consumerOnly()).isZero();
  }

  @Test
  void anInstrumentationsConsumerSpanAfterKlatsOfItsGroupJoinedIsSuperseded() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.offerProducer(Spans.producer(5, 0, 8, 20));
    c.offerConsumer(Spans.consumer(5, "g", 20, 25, 30));
    c.acceptOtel(OtelSpans.consumer(key(5), "g", 7, 6, 90, 105, 40, refs(7, 6, 105)));

    assertThat(out).hasSize(1);
    assertThat(out.get(0).capture()).isEqualTo(Capture.SAMPLED);
    assertThat(c.stats().otel().superseded()).isEqualTo(1);
  }

  @Test
  void klatsConsumerSpanAfterTheInstrumentationsJoinedLeavesThatBreakdownAndIsCounted() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.offerProducer(Spans.producer(5, 0, 8, 20));
    c.acceptOtel(OtelSpans.consumer(key(5), "g", 7, 6, 90, 105, 40, refs(7, 6, 105)));
    c.offerConsumer(Spans.consumer(5, "g", 20, 25, 30));

    assertThat(out).hasSize(1);
    assertThat(out.get(0).capture()).isEqualTo(Capture.OPENTELEMETRY);
    assertThat(c.stats().otel().agentAfterInstrumented()).isEqualTo(1);
  }

  @Test
  void anInstrumentedProducerAndKlatsConsumerKeepTheConsumersSegments() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.acceptOtel(OtelSpans.producer(key(5), 7, 6, 105, 0, Double.NaN));
    c.offerConsumer(Spans.consumer(5, "g", 20, 25, 30));

    assertThat(out).hasSize(1);
    JoinedBreakdown j = out.get(0);
    assertThat(j.capture()).isEqualTo(Capture.OPENTELEMETRY);
    Breakdown b = j.breakdown();
    assertThat(b.produceAndPublishNanos()).isEqualTo(12 * MS);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(3 * MS);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(10 * MS);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(5 * MS);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(30 * MS);
  }

  @Test
  void aTailSpanJoinedWithAnInstrumentationsSpanIsTail() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    c.offerProducer(CorrelatorTailTest.tailProducer(5, 0, 8, 20));
    c.acceptOtel(OtelSpans.consumer(key(5), "g", 1, 1, 90, 0, 40, ProducerRefs.EMPTY));

    assertThat(out).hasSize(1);
    assertThat(out.get(0).capture()).isEqualTo(Capture.TAIL);
  }

  @Test
  void aProducerWithoutOffsetThatNoConsumerNamesIsUnplacedAtTheWindowsEnd() {
    Correlator c = withProbe();
    c.acceptOtel(OtelSpans.producer(null, 1, 2, 11, 0, Double.NaN));
    // A consumer span of another record names another context.
    c.acceptOtel(OtelSpans.consumer(key(6), "g", 3, 4, 21, 0, 50, refs(1, 2, 12)));
    assertThat(c.stats().otel().waitingProducers()).isEqualTo(1);

    windowEnds(c);

    InstrumentedStats s = c.stats().otel();
    assertThat(s.unplaced()).isEqualTo(1);
    assertThat(s.waitingProducers()).isZero();
    assertThat(s.waitingBytes()).isZero();
    assertThat(out).isEmpty();
    assertThat(s.withoutBrokerData()).as("the consumer alone, without the probe").isEqualTo(1);
  }

  @Test
  void waitingProducersAreEvictedOverTheirByteBudget() {
    // A quarter of the join's bytes: room for two waiting producer spans of about 460 bytes.
    Correlator c =
        correlator(
            BrokerInstants.probeFirst(probes, (node, request, at) -> null, Replicas.UNKNOWN, MS),
            4_000);
    for (int i = 1; i <= 5; i++) {
      c.acceptOtel(OtelSpans.producer(null, 1, 2, i, 0, Double.NaN));
    }

    InstrumentedStats s = c.stats().otel();
    assertThat(s.evicted()).isEqualTo(3);
    assertThat(s.waitingProducers()).isEqualTo(2);
    assertThat(s.waitingBytes()).isBetween(1L, 1_000L);
    // The evicted one is no longer placed; the kept one is.
    probed(6, 10, 14);
    probed(7, 10, 14);
    c.acceptOtel(OtelSpans.consumer(key(6), "g", 3, 4, 21, 0, 50, refs(1, 2, 1)));
    c.acceptOtel(OtelSpans.consumer(key(7), "g", 3, 4, 22, 0, 50, refs(1, 2, 5)));
    assertThat(out).hasSize(1);
    assertThat(out.get(0).key()).isEqualTo(key(7));
  }

  @Test
  void anInstrumentedConsumerAloneGivesCommitAndCatchUpAndFetchOnItsClock() {
    Correlator c = withProbe();
    probed(7, 10, 15);
    c.acceptOtel(OtelSpans.consumer(key(7), "g", 3, 4, 21, 0, 40, ProducerRefs.EMPTY), 9);
    windowEnds(c);

    assertThat(out).hasSize(1);
    assertThat(sources).containsExactly(9L);
    JoinedBreakdown j = out.get(0);
    assertThat(j.capture()).isEqualTo(Capture.OPENTELEMETRY);
    assertThat(j.group()).isEqualTo("g");
    assertThat(j.producerSpanId()).isZero();
    assertThat(j.leaderNodeId()).isEqualTo(1);
    Breakdown b = j.breakdown();
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(5 * MS);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(25 * MS);
    assertThat(b.isEndToEndKnown()).isFalse();
    assertThat(c.stats().otel().consumerOnly()).isEqualTo(1);
    assertThat(c.stats().unjoinedConsumerSpans()).isZero();
  }

  @Test
  void aConsumerClockBehindTheLeaderIsMovedForwardNoFurtherThanItsRecordRequires() {
    Correlator c = withProbe();
    probed(7, 10, 15);
    // P read 10 ms before H: the consumer's clock is at least 10 ms behind the leader's.
    c.acceptOtel(OtelSpans.consumer(key(7), "g", 3, 4, 21, 0, 5, ProducerRefs.EMPTY));
    windowEnds(c);

    JoinedBreakdown j = out.get(0);
    assertThat(j.brokerOffset().offsetNanos()).isEqualTo(10 * MS);
    Breakdown b = j.breakdown();
    assertThat(b.clampCount()).isZero();
    assertThat(b.catchUpAndFetchNanos()).isZero();
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(5 * MS);
  }

  @Test
  void aConsumerClockAheadOfTheLeaderCannotBeSeenAndLengthensCatchUpAndFetch() {
    Correlator c = withProbe();
    probed(7, 10, 15);
    // Truly 40 ms, read on a clock 50 ms ahead.
    c.acceptOtel(OtelSpans.consumer(key(7), "g", 3, 4, 21, 0, 90, ProducerRefs.EMPTY));
    windowEnds(c);

    JoinedBreakdown j = out.get(0);
    assertThat(j.brokerOffset().offsetNanos()).isZero();
    assertThat(j.brokerOffset().bounded()).isFalse();
    assertThat(j.breakdown().catchUpAndFetchNanos()).isEqualTo(75 * MS);
  }

  @Test
  void aProducerClockAheadOfTheLeaderIsMovedBackAsFarAsItsBoundsRequire() {
    Correlator c = withProbe();
    probed(5, 12, 15);
    // Truly S = 0 and A = 20, read on a clock 30 ms ahead: S <= L needs 18 ms of it, L <= A
    // allows up to 38.
    c.acceptOtel(OtelSpans.producer(key(5), 7, 8, 70, 30, 50));
    windowEnds(c);

    assertThat(out).hasSize(1);
    JoinedBreakdown j = out.get(0);
    assertThat(j.group()).isNull();
    assertThat(j.consumerSpanId()).isZero();
    assertThat(j.brokerOffset().offsetNanos()).isEqualTo(-18 * MS);
    assertThat(j.brokerOffset().bounded()).as("bounded from both sides").isTrue();
    Breakdown b = j.breakdown();
    assertThat(b.clampCount()).isZero();
    assertThat(b.produceAndPublishNanos()).isZero();
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(3 * MS);
    assertThat(c.stats().otel().producerOnly()).isEqualTo(1);
  }

  @Test
  void withoutTheProbeAPairHasItsEndToEndAndASpanAloneNothing() {
    Correlator c =
        correlator(BrokerInstants.logAppendTime(), Correlator.Settings.DEFAULT_MAX_PENDING_BYTES);
    c.acceptOtel(OtelSpans.producer(key(5), 7, 8, 70, 0, 20));
    c.acceptOtel(OtelSpans.consumer(key(5), "g", 7, 8, 90, 70, 40, refs(7, 8, 70)));
    c.acceptOtel(OtelSpans.consumer(key(6), "g", 7, 8, 91, 71, 40, refs(7, 8, 71)));

    assertThat(out).hasSize(1);
    Breakdown b = out.get(0).breakdown();
    assertThat(b.e2eNanos()).isEqualTo(40 * MS);
    assertThat(b.produceAndPublishNanos()).isEqualTo(-1);
    assertThat(b.catchUpAndFetchNanos()).isEqualTo(-1);
    windowEnds(c);
    assertThat(out).hasSize(1);
    assertThat(c.stats().otel().withoutBrokerData()).isEqualTo(1);
  }

  @Test
  void aFloodOfConsumerSpansNamingSixteenUnknownContextsStaysWithinItsBudget() {
    Correlator c =
        correlator(BrokerInstants.logAppendTime(), Correlator.Settings.DEFAULT_MAX_PENDING_BYTES);
    long[] high = new long[ProducerRefs.MAX];
    long[] low = new long[ProducerRefs.MAX];
    long[] span = new long[ProducerRefs.MAX];
    for (int i = 0; i < 5_000; i++) {
      for (int r = 0; r < ProducerRefs.MAX; r++) {
        high[r] = 1;
        low[r] = i;
        span[r] = r + 1;
      }
      ProducerRefs refs = ProducerRefs.of(high, low, span, ProducerRefs.MAX);
      c.acceptOtel(OtelSpans.consumer(key(i), "g", 3, 4, 21 + i, 0, 40, refs));
    }

    // 100 records at most, and as many remembered contexts: the rest left, oldest first.
    assertThat(c.stats().pendingRecords()).isEqualTo(100);
    InstrumentedStats s = c.stats().otel();
    assertThat(s.waitingBytes()).isEqualTo(100L * ProducerPlacements.PLACED_BYTES);
    assertThat(s.droppedSpans()).isEqualTo(4_900);
  }

  @Test
  void instrumentedSpansOfEvictedRecordsAreCountedAsDropped() {
    Correlator c =
        Correlator.sourced(
            new Correlator.Settings(WINDOW_NANOS, 2, 60_000_000_000L, 100),
            () -> nowNanos,
            BrokerInstants.logAppendTime(),
            (breakdown, source) -> out.add(breakdown));
    for (int i = 0; i < 4; i++) {
      c.acceptOtel(OtelSpans.consumer(key(i), "g", 3, 4, 21 + i, 0, 40, ProducerRefs.EMPTY));
    }

    assertThat(c.stats().otel().droppedSpans()).isEqualTo(2);
    assertThat(c.stats().evicted()).isEqualTo(2);
  }
}
