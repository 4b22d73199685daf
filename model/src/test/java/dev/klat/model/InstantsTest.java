package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InstantsTest {

  private static Instants.Builder required() {
    return Instants.builder()
        .send(10)
        .drain(20)
        .commit(40)
        .fetchRequest(50)
        .fetchResponse(60)
        .poll(70);
  }

  @Test
  void missingRequiredInstantIsNamedInTheError() {
    for (TimePoint point : TimePoint.values()) {
      // Without D (and A) the rest is a consumer-only tail record; see the shape tests below.
      if (point == TimePoint.ACK || point == TimePoint.APPEND || point == TimePoint.DRAIN) {
        continue;
      }
      Instants.Builder builder = Instants.builder();
      for (TimePoint other : TimePoint.values()) {
        if (other != point) {
          builder.set(other, 1);
        }
      }
      assertThatThrownBy(builder::build)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("missing instants: " + point.symbol() + " (" + point.name() + ")");
    }
  }

  @Test
  void everyMissingRequiredInstantIsNamed() {
    assertThatThrownBy(() -> Instants.builder().send(1).poll(2).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("missing instants: H (COMMIT), F (FETCH_REQUEST), R (FETCH_RESPONSE)");
    assertThatThrownBy(() -> Instants.builder().ack(3).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("missing instants: S (SEND), D (DRAIN)");
    assertThatThrownBy(() -> Instants.builder().append(3).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "missing instants: S (SEND), D (DRAIN), H (COMMIT), F (FETCH_REQUEST),"
                + " R (FETCH_RESPONSE), P (POLL)");
  }

  @Test
  void aTailRecordSeenByOneSideHasThatSidesInstants() {
    Instants producerOnly = Instants.builder().send(10).drain(20).ack(50).build();
    assertThat(producerOnly.has(TimePoint.POLL)).isFalse();
    assertThat(producerOnly.has(TimePoint.COMMIT)).isFalse();
    assertThat(producerOnly.method(TimePoint.POLL)).isEqualTo(EstimationMethod.UNKNOWN);

    Instants consumerOnly =
        Instants.builder()
            .set(TimePoint.SEND, 10, EstimationMethod.CREATE_TIMESTAMP)
            .commit(40, EstimationMethod.FETCH_RESPONSE_BOUND)
            .fetchRequest(50)
            .fetchResponse(60)
            .poll(70)
            .build();
    assertThat(consumerOnly.has(TimePoint.DRAIN)).isFalse();
    assertThat(consumerOnly.method(TimePoint.SEND)).isEqualTo(EstimationMethod.CREATE_TIMESTAMP);

    Instants logAppendTime =
        Instants.builder()
            .append(30, EstimationMethod.LOG_APPEND_TIMESTAMP)
            .commit(40, EstimationMethod.FETCH_RESPONSE_BOUND)
            .fetchRequest(50)
            .fetchResponse(60)
            .poll(70)
            .build();
    assertThat(logAppendTime.has(TimePoint.SEND)).isFalse();
    assertThat(logAppendTime.nanos(TimePoint.SEND)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void ackAndAppendAreOptional() {
    Instants instants = required().build();

    assertThat(instants.has(TimePoint.ACK)).isFalse();
    assertThat(instants.has(TimePoint.APPEND)).isFalse();
    assertThat(instants.nanos(TimePoint.APPEND)).isEqualTo(Long.MIN_VALUE);
    assertThat(instants.method(TimePoint.APPEND)).isEqualTo(EstimationMethod.UNKNOWN);
    assertThat(instants.method(TimePoint.ACK)).isEqualTo(EstimationMethod.UNKNOWN);
    assertThat(instants.has(TimePoint.SEND)).isTrue();
    assertThat(instants.nanos(TimePoint.POLL)).isEqualTo(70);
  }

  @Test
  void clientInstantsDefaultToMeasuredAndBrokerInstantsToUnknown() {
    Instants instants = required().ack(30).append(35).build();

    for (TimePoint point : TimePoint.values()) {
      EstimationMethod expected =
          point.observer() == TimePoint.Observer.BROKER
              ? EstimationMethod.UNKNOWN
              : EstimationMethod.MEASURED;
      assertThat(instants.method(point)).as(point.name()).isEqualTo(expected);
    }
  }

  @Test
  void statedMethodsAreKept() {
    Instants instants =
        required()
            .append(35, EstimationMethod.LOG_APPEND_TIMESTAMP)
            .commit(40, EstimationMethod.PRODUCE_REMOTE_TIME)
            .set(TimePoint.POLL, 71, EstimationMethod.BROKER_PROBE)
            .build();

    assertThat(instants.method(TimePoint.APPEND)).isEqualTo(EstimationMethod.LOG_APPEND_TIMESTAMP);
    assertThat(instants.method(TimePoint.COMMIT)).isEqualTo(EstimationMethod.PRODUCE_REMOTE_TIME);
    assertThat(instants.method(TimePoint.POLL)).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(instants.nanos(TimePoint.POLL)).isEqualTo(71);
  }

  @Test
  void methodOfAnAbsentInstantIsUnknownWhateverWasSet() {
    Instants instants = required().method(TimePoint.APPEND, EstimationMethod.BROKER_PROBE).build();

    assertThat(instants.method(TimePoint.APPEND)).isEqualTo(EstimationMethod.UNKNOWN);
  }

  @Test
  void methodSetBeforeTheValueApplies() {
    Instants instants =
        required().method(TimePoint.COMMIT, EstimationMethod.BROKER_PROBE).commit(41).build();

    assertThat(instants.method(TimePoint.COMMIT)).isEqualTo(EstimationMethod.BROKER_PROBE);
    assertThat(instants.nanos(TimePoint.COMMIT)).isEqualTo(41);
  }

  @Test
  void nullMethodIsRejected() {
    assertThatThrownBy(() -> required().method(TimePoint.COMMIT, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("H");
  }

  @Test
  void namedSettersAndSetByTimePointAreEquivalent() {
    Instants named = required().ack(30).append(35).build();
    Instants.Builder byPoint = Instants.builder();
    long[] values = {10, 20, 30, 35, 40, 50, 60, 70};
    for (TimePoint point : TimePoint.values()) {
      byPoint.set(point, values[point.ordinal()]);
    }

    assertThat(byPoint.build()).isEqualTo(named).hasSameHashCodeAs(named);
  }

  @Test
  void instantsDifferingInValueOrMethodAreNotEqual() {
    Instants base = required().build();

    assertThat(required().poll(71).build()).isNotEqualTo(base);
    assertThat(required().commit(40, EstimationMethod.BROKER_PROBE).build()).isNotEqualTo(base);
    assertThat(required().ack(30).build()).isNotEqualTo(base);
    assertThat(base).isNotEqualTo(null).isNotEqualTo("Instants");
  }

  @Test
  void builderCanBeReusedWithoutChangingBuiltInstants() {
    Instants.Builder builder = required();
    Instants first = builder.build();
    builder.poll(99);

    assertThat(first.nanos(TimePoint.POLL)).isEqualTo(70);
    assertThat(builder.build().nanos(TimePoint.POLL)).isEqualTo(99);
  }

  @Test
  void spanWiderThanLongMaxValueIsRejected() {
    assertThatThrownBy(() -> required().send(Long.MIN_VALUE).poll(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("span");
    // Exactly Long.MAX_VALUE is still supported.
    Instants widest =
        Instants.builder()
            .send(Long.MIN_VALUE)
            .drain(-5)
            .commit(-4)
            .fetchRequest(-3)
            .fetchResponse(-2)
            .poll(-1)
            .build();
    assertThat(widest.nanos(TimePoint.SEND)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void toStringShowsSendAndOffsetsFromIt() {
    Instants instants = required().append(35, EstimationMethod.BROKER_PROBE).drain(5).build();

    assertThat(instants)
        .hasToString(
            "Instants{S=10, D=S-5, A=?, L=S+25(broker-probe), H=S+30(unknown), F=S+40,"
                + " R=S+50, P=S+60}");
  }
}
