package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BreakdownTest {

  // An arbitrary epoch-nanosecond origin; examples are written as offsets from it.
  private static final long T0 = 1_700_000_000_000_000_000L;

  private static Instants.Builder ordered() {
    // S=0 D=100 A=400 L=250 H=380 F=900 R=1000 P=1300: the consumer is lagging (F > H).
    return Instants.builder()
        .send(T0)
        .drain(T0 + 100)
        .ack(T0 + 400)
        .append(T0 + 250, EstimationMethod.BROKER_PROBE)
        .commit(T0 + 380, EstimationMethod.BROKER_PROBE)
        .fetchRequest(T0 + 900)
        .fetchResponse(T0 + 1000)
        .poll(T0 + 1300);
  }

  private static Breakdown compute(Instants.Builder builder) {
    Breakdown breakdown = Breakdown.compute(builder.build());
    BreakdownInvariants.check(breakdown);
    return breakdown;
  }

  @Test
  void segmentsSumToEndToEndWhenFetchFollowsCommit() {
    Breakdown b = compute(ordered());

    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(100);
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(150);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(130);
    // Lag F - H = 520 plus fetch-buffer wait P - R = 300.
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(820);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(100);
    assertThat(b.publishAndCommitNanos()).isEqualTo(280);
    assertThat(b.e2eNanos()).isEqualTo(1300);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(1300);
    assertThat(b.clamps()).isEmpty();
    assertThat(b.instants()).isEqualTo(b.original());
  }

  @Test
  void segmentsSumToEndToEndWhenFetchPrecedesCommit() {
    // The consumer was already waiting in a long-poll fetch when the record was committed.
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0 + 1000)
                .drain(T0 + 1100)
                .ack(T0 + 1500)
                .append(T0 + 1300, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 1450, EstimationMethod.BROKER_PROBE)
                .fetchRequest(T0 + 1200)
                .fetchResponse(T0 + 1600)
                .poll(T0 + 1650));

    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(100);
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(200);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(150);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(50);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(150);
    assertThat(b.e2eNanos()).isEqualTo(650);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(650);
    assertThat(b.clamps()).isEmpty();
  }

  @Test
  void fetchSegmentStartsAtCommitWhenFetchRequestAndCommitCoincide() {
    Breakdown b = compute(ordered().fetchRequest(T0 + 380));

    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(300);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(620);
  }

  @Test
  void publishAndCommitAreUnknownButTheirSumIsKnownWithoutAppend() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 100)
                .commit(T0 + 380, EstimationMethod.FETCH_RESPONSE_BOUND)
                .fetchRequest(T0 + 900)
                .fetchResponse(T0 + 1000)
                .poll(T0 + 1300));

    assertThat(b.isKnown(Segment.PUBLISH)).isFalse();
    assertThat(b.isKnown(Segment.COMMIT)).isFalse();
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(-1);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(-1);
    assertThat(b.seconds(Segment.PUBLISH)).isNaN();
    assertThat(b.quality(Segment.PUBLISH)).isEqualTo(Quality.NONE);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.UNKNOWN);
    assertThat(b.publishAndCommitNanos()).isEqualTo(280);
    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(100);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(820);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(100);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos()).isEqualTo(1300);
    // Unknown segments do not make the whole breakdown NONE.
    assertThat(b.quality()).isEqualTo(Quality.ESTIMATED);
  }

  @Test
  void secondsAreNanosDividedByOneBillion() {
    Breakdown b = compute(ordered().poll(T0 + 1000 + 2_500_000_000L));

    assertThat(b.seconds(Segment.CATCH_UP)).isEqualTo(2.50000052);
    assertThat(b.seconds(Segment.PRODUCE)).isEqualTo(1e-7);
  }

  @Test
  void drainBeforeSendIsRaisedToSend() {
    Breakdown b = compute(ordered().drain(T0 - 40));

    assertThat(b.clamps()).containsExactly(new Clamp(TimePoint.DRAIN, TimePoint.SEND, 40));
    assertThat(b.nanos(Segment.PRODUCE)).isZero();
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(250);
    assertThat(b.wasClamped(TimePoint.DRAIN)).isTrue();
    assertThat(b.wasClamped(TimePoint.SEND)).isFalse();
    assertThat(b.original().nanos(TimePoint.DRAIN)).isEqualTo(T0 - 40);
  }

  @Test
  void commitBeforeAppendIsRaisedToAppend() {
    Breakdown b = compute(ordered().commit(T0 + 200, EstimationMethod.PRODUCE_REMOTE_TIME));

    assertThat(b.clamps()).containsExactly(new Clamp(TimePoint.COMMIT, TimePoint.APPEND, 50));
    assertThat(b.nanos(Segment.COMMIT)).isZero();
    assertThat(b.instants().nanos(TimePoint.COMMIT)).isEqualTo(T0 + 250);
    // A clamped estimate keeps its method.
    assertThat(b.instants().method(TimePoint.COMMIT))
        .isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
  }

  @Test
  void appendAfterAckIsLoweredToAck() {
    Breakdown b =
        compute(
            ordered().append(T0 + 450, EstimationMethod.PRODUCE_REQUEST_METRICS).commit(T0 + 500));

    assertThat(b.clamps()).containsExactly(new Clamp(TimePoint.APPEND, TimePoint.ACK, -50));
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(300);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(100);
  }

  @Test
  void appendAfterFetchResponseIsLoweredToFetchResponseWithoutAck() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 100)
                .append(T0 + 1200, EstimationMethod.PRODUCE_REQUEST_METRICS)
                .commit(T0 + 1250, EstimationMethod.PRODUCE_REMOTE_TIME)
                .fetchRequest(T0 + 900)
                .fetchResponse(T0 + 1000)
                .poll(T0 + 1300));

    assertThat(b.clamps())
        .containsExactly(
            new Clamp(TimePoint.APPEND, TimePoint.FETCH_RESPONSE, -200),
            new Clamp(TimePoint.COMMIT, TimePoint.FETCH_RESPONSE, -250));
    assertThat(b.nanos(Segment.FETCH)).isZero();
  }

  @Test
  void commitEstimateAfterFetchResponseIsLoweredAndFetchResponseStays() {
    // H <= R is a bound on the broker estimate: the consumer's measured R and P - R are kept.
    Breakdown b = compute(ordered().commit(T0 + 1100, EstimationMethod.FOLLOWER_FETCH_METRICS));

    assertThat(b.clamps())
        .containsExactly(new Clamp(TimePoint.COMMIT, TimePoint.FETCH_RESPONSE, -100));
    assertThat(b.instants().nanos(TimePoint.FETCH_RESPONSE)).isEqualTo(T0 + 1000);
    assertThat(b.nanos(Segment.FETCH)).isZero();
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(750);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(300);
  }

  @Test
  void pollBeforeSendIsRaisedToSendAndTheRestFollows() {
    // Consumer clock far behind the producer's: every consumer instant precedes S.
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0 + 1000)
                .drain(T0 + 1100)
                .ack(T0 + 1500)
                .append(T0 + 1300, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 1450, EstimationMethod.BROKER_PROBE)
                .fetchRequest(T0 + 700)
                .fetchResponse(T0 + 800)
                .poll(T0 + 900));

    assertThat(b.clamps())
        .containsExactly(
            new Clamp(TimePoint.POLL, TimePoint.SEND, 100),
            new Clamp(TimePoint.DRAIN, TimePoint.POLL, -100),
            new Clamp(TimePoint.FETCH_RESPONSE, TimePoint.DRAIN, 200),
            new Clamp(TimePoint.APPEND, TimePoint.FETCH_RESPONSE, -300),
            new Clamp(TimePoint.COMMIT, TimePoint.FETCH_RESPONSE, -450));
    assertThat(b.e2eNanos()).isZero();
    for (Segment segment : Segment.values()) {
      assertThat(b.nanos(segment)).as(segment.id()).isZero();
    }
    assertThat(b.wasClamped(TimePoint.FETCH_REQUEST)).isFalse();
    assertThat(b.clampCount()).isEqualTo(5);
  }

  @Test
  void fetchRequestAfterFetchResponseIsLoweredToFetchResponse() {
    Breakdown b = compute(ordered().fetchRequest(T0 + 1070));

    assertThat(b.clamps())
        .containsExactly(new Clamp(TimePoint.FETCH_REQUEST, TimePoint.FETCH_RESPONSE, -70));
    assertThat(b.nanos(Segment.FETCH)).isZero();
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(920);
  }

  @Test
  void ackBeforeDrainIsRaisedToDrainAndBoundsAppendThere() {
    // The lower bound D wins over the upper bound A: A moves to D, then L to A.
    Breakdown b = compute(ordered().ack(T0 + 60));

    assertThat(b.clamps())
        .containsExactly(
            new Clamp(TimePoint.ACK, TimePoint.DRAIN, 40),
            new Clamp(TimePoint.APPEND, TimePoint.ACK, -150));
    assertThat(b.nanos(Segment.PUBLISH)).isZero();
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(280);
  }

  @Test
  void fetchResponseBeforeDrainIsRaisedToDrain() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 100)
                .commit(T0 + 150, EstimationMethod.FETCH_RESPONSE_BOUND)
                .fetchRequest(T0 + 20)
                .fetchResponse(T0 + 50)
                .poll(T0 + 300));

    assertThat(b.clamps())
        .containsExactly(
            new Clamp(TimePoint.FETCH_RESPONSE, TimePoint.DRAIN, 50),
            new Clamp(TimePoint.COMMIT, TimePoint.FETCH_RESPONSE, -50));
    assertThat(b.nanos(Segment.FETCH)).isZero();
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(200);
  }

  @Test
  void fetchResponseAfterPollIsLoweredToPoll() {
    Breakdown b = compute(ordered().fetchResponse(T0 + 1400));

    assertThat(b.clamps())
        .containsExactly(new Clamp(TimePoint.FETCH_RESPONSE, TimePoint.POLL, -100));
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(400);
  }

  @Test
  void drainAfterPollIsLoweredToPoll() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 500)
                .commit(T0 + 500)
                .fetchRequest(T0 + 100)
                .fetchResponse(T0 + 200)
                .poll(T0 + 300));

    assertThat(b.clamps())
        .containsExactly(
            new Clamp(TimePoint.DRAIN, TimePoint.POLL, -200),
            new Clamp(TimePoint.FETCH_RESPONSE, TimePoint.DRAIN, 100),
            new Clamp(TimePoint.COMMIT, TimePoint.FETCH_RESPONSE, -200));
    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(300);
  }

  @Test
  void clampsListIsUnmodifiable() {
    Breakdown b = compute(ordered().drain(T0 - 1));

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.clamps().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void segmentQualityIsTheWorstOfItsInstantsAndTiesGoToTheLaterInstant() {
    Breakdown b = compute(ordered());

    assertThat(b.quality()).isEqualTo(Quality.EXACT);
    assertThat(b.method(Segment.PRODUCE)).isEqualTo(EstimationMethod.MEASURED);
    assertThat(b.method(Segment.PUBLISH)).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.BROKER_PROBE);
    // Inputs H, F, R, P (and H, F, R) are all exact: the latest, measured on the consumer, wins.
    assertThat(b.method(Segment.CATCH_UP)).isEqualTo(EstimationMethod.MEASURED);
    assertThat(b.method(Segment.FETCH)).isEqualTo(EstimationMethod.MEASURED);
    for (Segment segment : Segment.values()) {
      assertThat(b.quality(segment)).as(segment.id()).isEqualTo(Quality.EXACT);
    }
  }

  @Test
  void estimatedBrokerInstantsLowerTheQualityOfTheSegmentsTheyEnter() {
    Breakdown b =
        compute(
            ordered()
                .append(T0 + 250, EstimationMethod.LOG_APPEND_TIMESTAMP)
                .commit(T0 + 380, EstimationMethod.PRODUCE_REMOTE_TIME));

    assertThat(b.quality(Segment.PRODUCE)).isEqualTo(Quality.EXACT);
    assertThat(b.quality(Segment.PUBLISH)).isEqualTo(Quality.LOG_APPEND_TIME);
    assertThat(b.method(Segment.PUBLISH)).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(b.quality(Segment.COMMIT)).isEqualTo(Quality.ESTIMATED);
    assertThat(b.method(Segment.COMMIT)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    assertThat(b.quality(Segment.CATCH_UP)).isEqualTo(Quality.ESTIMATED);
    assertThat(b.method(Segment.CATCH_UP)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    assertThat(b.method(Segment.FETCH)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    assertThat(b.quality()).isEqualTo(Quality.ESTIMATED);
  }

  @Test
  void commitWithoutStatedMethodMakesItsSegmentsQualityNone() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 100)
                .commit(T0 + 380)
                .fetchRequest(T0 + 900)
                .fetchResponse(T0 + 1000)
                .poll(T0 + 1300));

    assertThat(b.quality(Segment.PRODUCE)).isEqualTo(Quality.EXACT);
    assertThat(b.quality(Segment.FETCH)).isEqualTo(Quality.NONE);
    assertThat(b.method(Segment.FETCH)).isEqualTo(EstimationMethod.UNKNOWN);
    assertThat(b.quality()).isEqualTo(Quality.NONE);
  }

  @Test
  void worseClientMethodDeterminesProduceQuality() {
    Breakdown b = compute(ordered().set(TimePoint.SEND, T0, EstimationMethod.FETCH_RESPONSE_BOUND));

    assertThat(b.quality(Segment.PRODUCE)).isEqualTo(Quality.ESTIMATED);
    assertThat(b.method(Segment.PRODUCE)).isEqualTo(EstimationMethod.FETCH_RESPONSE_BOUND);
  }

  @Test
  void instantsAtTheEdgesOfTheLongRangeDoNotOverflow() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(Long.MIN_VALUE)
                .drain(Long.MIN_VALUE + 1)
                .append(-2, EstimationMethod.BROKER_PROBE)
                .commit(-1, EstimationMethod.BROKER_PROBE)
                .fetchRequest(Long.MIN_VALUE)
                .fetchResponse(-1)
                .poll(-1));

    assertThat(b.e2eNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(Long.MAX_VALUE - 2);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void toStringShowsSegmentsQualityClampsAndInput() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 1200)
                .commit(T0 + 4400, EstimationMethod.FETCH_RESPONSE_BOUND)
                .fetchRequest(T0 + 3900)
                .fetchResponse(T0 + 4300)
                .poll(T0 + 4700));

    assertThat(b.toString())
        .isEqualTo(
            "Breakdown{e2e=4700ns produce=1200 publish=? commit=? publish+commit=3100"
                + " catch-up=400(fetch-response-bound) fetch=0(fetch-response-bound)"
                + " quality=estimated clamps=[H<=R(-100ns)] input=Instants{S="
                + T0
                + ", D=S+1200, A=?, L=?, H=S+4400(fetch-response-bound), F=S+3900, R=S+4300,"
                + " P=S+4700}}");
  }

  // Section 8 of the latency model: tail records seen by one side only.

  @Test
  void producerOnlyTailRecordHasProducePublishAndCommitButNoEndToEnd() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 100)
                .ack(T0 + 400)
                .append(T0 + 250, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 380, EstimationMethod.BROKER_PROBE));

    assertThat(b.nanos(Segment.PRODUCE)).isEqualTo(100);
    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(150);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(130);
    assertThat(b.isKnown(Segment.CATCH_UP)).isFalse();
    assertThat(b.isKnown(Segment.FETCH)).isFalse();
    assertThat(b.quality(Segment.FETCH)).isEqualTo(Quality.NONE);
    assertThat(b.isEndToEndKnown()).isFalse();
    assertThat(b.e2eNanos()).isEqualTo(-1);
    assertThat(b.produceAndPublishNanos()).isEqualTo(250);
    assertThat(b.publishAndCommitNanos()).isEqualTo(280);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(380);
    assertThat(b.quality()).isEqualTo(Quality.EXACT);
    assertThat(b.clamps()).isEmpty();
  }

  @Test
  void producerOnlyAppendAfterAckIsLoweredToAckWithoutAConsumer() {
    Breakdown b =
        compute(
            Instants.builder()
                .send(T0)
                .drain(T0 + 100)
                .ack(T0 + 400)
                .append(T0 + 450, EstimationMethod.PRODUCE_REQUEST_METRICS));

    assertThat(b.nanos(Segment.PUBLISH)).isEqualTo(300);
    assertThat(b.isKnown(Segment.COMMIT)).isFalse();
    assertThat(b.publishAndCommitNanos()).isEqualTo(-1);
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(400);
    assertThat(b.clamps()).extracting(Clamp::bound).containsExactly(TimePoint.ACK);
  }

  @Test
  void consumerOnlyOnCreateTimeCombinesProduceAndPublish() {
    Breakdown b =
        compute(
            Instants.builder()
                .set(TimePoint.SEND, T0, EstimationMethod.CREATE_TIMESTAMP)
                .append(T0 + 250, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 380, EstimationMethod.BROKER_PROBE)
                .fetchRequest(T0 + 900)
                .fetchResponse(T0 + 1000)
                .poll(T0 + 1300));

    assertThat(b.isKnown(Segment.PRODUCE)).isFalse();
    assertThat(b.isKnown(Segment.PUBLISH)).isFalse();
    assertThat(b.produceAndPublishNanos()).isEqualTo(250);
    assertThat(b.publishAndCommitNanos()).isEqualTo(-1);
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(130);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(820);
    assertThat(b.nanos(Segment.FETCH)).isEqualTo(100);
    assertThat(b.isEndToEndKnown()).isTrue();
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos()).isEqualTo(1300);
    // S enters produce+publish: the breakdown is only as good as the create timestamp.
    assertThat(b.quality(Segment.COMMIT)).isEqualTo(Quality.EXACT);
    assertThat(b.quality()).isEqualTo(Quality.CREATE_TIME);
  }

  @Test
  void consumerOnlyWithoutAppendCombinesProduceThroughCommit() {
    Breakdown b =
        compute(
            Instants.builder()
                .set(TimePoint.SEND, T0, EstimationMethod.CREATE_TIMESTAMP)
                .commit(T0 + 1000, EstimationMethod.FETCH_RESPONSE_BOUND)
                .fetchRequest(T0 + 900)
                .fetchResponse(T0 + 1000)
                .poll(T0 + 1300));

    assertThat(b.produceAndPublishNanos()).isEqualTo(-1);
    assertThat(b.producePublishAndCommitNanos()).isEqualTo(1000);
    assertThat(b.isKnown(Segment.COMMIT)).isFalse();
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(b.e2eNanos()).isEqualTo(1300);
  }

  @Test
  void consumerOnlyCreateTimestampAfterAppendGivesWayAndTheConsumerStays() {
    // The producer host's clock is 2 µs ahead: S lands after L, and S moves, not the consumer.
    Breakdown b =
        compute(
            Instants.builder()
                .set(TimePoint.SEND, T0 + 2000, EstimationMethod.CREATE_TIMESTAMP)
                .append(T0 + 250, EstimationMethod.BROKER_PROBE)
                .commit(T0 + 380, EstimationMethod.BROKER_PROBE)
                .fetchRequest(T0 + 900)
                .fetchResponse(T0 + 1000)
                .poll(T0 + 1300));

    assertThat(b.clamps()).hasSize(1);
    assertThat(b.clamps().get(0).point()).isEqualTo(TimePoint.SEND);
    assertThat(b.clamps().get(0).bound()).isEqualTo(TimePoint.APPEND);
    assertThat(b.produceAndPublishNanos()).isZero();
    assertThat(b.instants().nanos(TimePoint.POLL)).isEqualTo(T0 + 1300);
    assertThat(b.e2eNanos()).isEqualTo(1050);
  }

  @Test
  void consumerOnlyOnLogAppendTimeHasNoEndToEnd() {
    Breakdown b =
        compute(
            Instants.builder()
                .append(T0 + 250, EstimationMethod.LOG_APPEND_TIMESTAMP)
                .commit(T0 + 1100, EstimationMethod.FETCH_RESPONSE_BOUND)
                .fetchRequest(T0 + 900)
                .fetchResponse(T0 + 1000)
                .poll(T0 + 1300));

    assertThat(b.isEndToEndKnown()).isFalse();
    assertThat(b.produceAndPublishNanos()).isEqualTo(-1);
    // H was clamped onto R.
    assertThat(b.nanos(Segment.COMMIT)).isEqualTo(750);
    assertThat(b.nanos(Segment.CATCH_UP)).isEqualTo(300);
    assertThat(b.nanos(Segment.FETCH)).isZero();
    assertThat(b.sumOfSegmentsNanos()).isEqualTo(1050);
    assertThat(b.quality(Segment.COMMIT)).isEqualTo(Quality.ESTIMATED);
    assertThat(b.toString()).startsWith("Breakdown{e2e=?ns produce=? publish=? commit=750");
  }
}
