package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The enums' identifiers are wire values: these tests pin them. */
class VocabularyTest {

  @Test
  void timePointsHaveTheModelsSymbolsInChainOrder() {
    List<String> symbols = new ArrayList<>();
    for (TimePoint point : TimePoint.values()) {
      symbols.add(point.symbol());
    }
    assertThat(symbols).containsExactly("S", "D", "A", "L", "H", "F", "R", "P");
  }

  @Test
  void timePointsAreObservedByTheProcessWhoseClockTheyUse() {
    assertThat(TimePoint.SEND.observer()).isEqualTo(TimePoint.Observer.PRODUCER);
    assertThat(TimePoint.DRAIN.observer()).isEqualTo(TimePoint.Observer.PRODUCER);
    assertThat(TimePoint.ACK.observer()).isEqualTo(TimePoint.Observer.PRODUCER);
    assertThat(TimePoint.APPEND.observer()).isEqualTo(TimePoint.Observer.BROKER);
    assertThat(TimePoint.COMMIT.observer()).isEqualTo(TimePoint.Observer.BROKER);
    assertThat(TimePoint.FETCH_REQUEST.observer()).isEqualTo(TimePoint.Observer.CONSUMER);
    assertThat(TimePoint.FETCH_RESPONSE.observer()).isEqualTo(TimePoint.Observer.CONSUMER);
    assertThat(TimePoint.POLL.observer()).isEqualTo(TimePoint.Observer.CONSUMER);
  }

  @Test
  void segmentIdsAndFormulasArePinned() {
    assertThat(Segment.PRODUCE.id()).isEqualTo("produce");
    assertThat(Segment.PUBLISH.id()).isEqualTo("publish");
    assertThat(Segment.COMMIT.id()).isEqualTo("commit");
    assertThat(Segment.CATCH_UP.id()).isEqualTo("catch-up");
    assertThat(Segment.FETCH.id()).isEqualTo("fetch");
    assertThat(Segment.PRODUCE.formula()).isEqualTo("D - S");
    assertThat(Segment.PUBLISH.formula()).isEqualTo("L - D");
    assertThat(Segment.COMMIT.formula()).isEqualTo("H - L");
    assertThat(Segment.CATCH_UP.formula()).isEqualTo("max(0, F - H) + (P - R)");
    assertThat(Segment.FETCH.formula()).isEqualTo("R - max(F, H)");
  }

  @Test
  void segmentFromIdRoundTripsAndReturnsNullForUnknownIds() {
    for (Segment segment : Segment.values()) {
      assertThat(Segment.fromId(segment.id())).isSameAs(segment);
    }
    assertThat(Segment.fromId("catch_up")).isNull();
    assertThat(Segment.fromId("PRODUCE")).isNull();
    assertThat(Segment.fromId("")).isNull();
    assertThat(Segment.fromId(null)).isNull();
  }

  @Test
  void segmentFormulasMentionExactlyTheInstantsQualityIsTakenFrom() {
    for (Segment segment : Segment.values()) {
      List<String> mentioned = new ArrayList<>();
      for (TimePoint point : TimePoint.values()) {
        if (segment.formula().matches(".*\\b" + point.symbol() + "\\b.*")) {
          mentioned.add(point.symbol());
        }
      }
      List<String> inputs = new ArrayList<>();
      for (TimePoint point : segment.inputs()) {
        inputs.add(point.symbol());
      }
      assertThat(inputs).as(segment.id()).isEqualTo(mentioned);
    }
  }

  @Test
  void qualitiesAreOrderedFromBestToWorst() {
    assertThat(Quality.values())
        .containsExactly(
            Quality.EXACT,
            Quality.LOG_APPEND_TIME,
            Quality.CLIENT_CLOCK,
            Quality.CREATE_TIME,
            Quality.ESTIMATED,
            Quality.NONE);
    assertThat(Quality.worst(Quality.EXACT, Quality.ESTIMATED)).isEqualTo(Quality.ESTIMATED);
    assertThat(Quality.worst(Quality.NONE, Quality.LOG_APPEND_TIME)).isEqualTo(Quality.NONE);
    assertThat(Quality.worst(Quality.LOG_APPEND_TIME, Quality.LOG_APPEND_TIME))
        .isEqualTo(Quality.LOG_APPEND_TIME);
  }

  @Test
  void qualityIdsArePinnedAndRoundTrip() {
    assertThat(Quality.EXACT.id()).isEqualTo("exact");
    assertThat(Quality.LOG_APPEND_TIME.id()).isEqualTo("log-append-time");
    assertThat(Quality.CREATE_TIME.id()).isEqualTo("create-time");
    assertThat(Quality.ESTIMATED.id()).isEqualTo("estimated");
    assertThat(Quality.NONE.id()).isEqualTo("none");
    for (Quality quality : Quality.values()) {
      assertThat(Quality.fromId(quality.id())).isSameAs(quality);
    }
    assertThat(Quality.fromId("EXACT")).isNull();
    assertThat(Quality.fromId(null)).isNull();
  }

  @Test
  void estimationMethodsStateTheirQuality() {
    assertThat(EstimationMethod.MEASURED.quality()).isEqualTo(Quality.EXACT);
    assertThat(EstimationMethod.BROKER_PROBE.quality()).isEqualTo(Quality.EXACT);
    assertThat(EstimationMethod.LOG_APPEND_TIMESTAMP.quality()).isEqualTo(Quality.LOG_APPEND_TIME);
    assertThat(EstimationMethod.CREATE_TIMESTAMP.quality()).isEqualTo(Quality.CREATE_TIME);
    assertThat(EstimationMethod.CREATE_TIMESTAMP.id()).isEqualTo("create-timestamp");
    assertThat(EstimationMethod.PRODUCE_REQUEST_METRICS.quality()).isEqualTo(Quality.ESTIMATED);
    assertThat(EstimationMethod.PRODUCE_REMOTE_TIME.quality()).isEqualTo(Quality.ESTIMATED);
    assertThat(EstimationMethod.FOLLOWER_FETCH_METRICS.quality()).isEqualTo(Quality.ESTIMATED);
    assertThat(EstimationMethod.CONSUMER_FETCH_WAIT.quality()).isEqualTo(Quality.ESTIMATED);
    assertThat(EstimationMethod.CONSUMER_FETCH_WAIT.id()).isEqualTo("consumer-fetch-wait");
    assertThat(EstimationMethod.FETCH_RESPONSE_BOUND.quality()).isEqualTo(Quality.ESTIMATED);
    assertThat(EstimationMethod.ACK_BOUND.quality()).isEqualTo(Quality.ESTIMATED);
    assertThat(EstimationMethod.UNKNOWN.quality()).isEqualTo(Quality.NONE);
  }

  @Test
  void estimationMethodIdsAreLowercaseHyphenatedConstantNames() {
    for (EstimationMethod method : EstimationMethod.values()) {
      assertThat(method.id()).isEqualTo(method.name().toLowerCase().replace('_', '-'));
      assertThat(EstimationMethod.fromId(method.id())).isSameAs(method);
    }
    assertThat(EstimationMethod.fromId("broker_probe")).isNull();
    assertThat(EstimationMethod.fromId(null)).isNull();
  }

  @Test
  void headerNamesArePinned() {
    assertThat(HeaderNames.TRACEPARENT).isEqualTo("traceparent");
    assertThat(HeaderNames.TRACESTATE).isEqualTo("tracestate");
    assertThat(HeaderNames.TIMING).isEqualTo("klat-timing");
  }
}
