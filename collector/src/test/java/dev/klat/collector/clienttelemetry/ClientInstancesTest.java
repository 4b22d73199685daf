package dev.klat.collector.clienttelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The registry's bounds: count, estimated bytes, staleness, each eviction counted. */
class ClientInstancesTest {
  private static final long S = 1_000_000_000L;

  static ClientInstance instance(String id, String clientId, long pushNanos, String... topics) {
    return new ClientInstance(
        id,
        clientId,
        "librdkafka",
        "2.10.0",
        "User:alice",
        ClientInstance.PRODUCER,
        null,
        List.of(topics),
        1,
        false,
        pushNanos,
        Map.of(ClientFigure.RECORD_QUEUE_TIME, new ClientInstance.Aggregate(5, 20)));
  }

  @Test
  void overTheCountTheOldestPushLeavesAndARepushKeepsAnInstance() {
    ClientInstances r = new ClientInstances(2, Long.MAX_VALUE, 600 * S);
    r.put(instance("a", "a", 0), 0);
    r.put(instance("b", "b", S), S);
    r.put(instance("a", "a", 2 * S), 2 * S); // a pushes again: b is now the oldest
    r.put(instance("c", "c", 3 * S), 3 * S);
    assertThat(r.snapshot(3 * S))
        .extracting(ClientInstance::clientInstanceId)
        .containsExactly("a", "c");
    assertThat(r.evictions()).containsEntry(ClientInstances.MAX_INSTANCES, 1L);
    assertThat(r.evicted()).isEqualTo(1);
  }

  @Test
  void overTheBytesTheOldestLeavesAndTheEstimateAddsUp() {
    long one = ClientInstances.estimatedBytes(instance("a", "a", 0, "orders"));
    ClientInstances r = new ClientInstances(100, 2 * one + one / 2, 600 * S);
    r.put(instance("a", "a", 0, "orders"), 0);
    r.put(instance("b", "b", 0, "orders"), 0);
    assertThat(r.estimatedBytes()).isEqualTo(2 * one);
    r.put(instance("c", "c", 0, "orders"), 0);
    assertThat(r.snapshot(0))
        .extracting(ClientInstance::clientInstanceId)
        .containsExactly("b", "c");
    assertThat(r.evictions()).containsEntry(ClientInstances.MAX_BYTES, 1L);
    assertThat(r.estimatedBytes()).isEqualTo(2 * one);
    // An instance larger than the budget alone is still held: the newest push is never refused.
    ClientInstances tiny = new ClientInstances(100, 10, 600 * S);
    tiny.put(instance("big", "x".repeat(255), 0, "t"), 0);
    assertThat(tiny.size()).isEqualTo(1);
  }

  // A real librdkafka 2.12.0 producer's terminating push carried every latency as 0
  // (ClientTelemetryIT): its last push covers only the time since the one before.
  @Test
  void aTerminatingPushKeepsThePreviousPushsFigures() {
    ClientInstances r = new ClientInstances(100, Long.MAX_VALUE, 600 * S);
    r.put(instance("a", "a", 0), 0);
    ClientInstance closing =
        new ClientInstance(
            "a",
            "a",
            "librdkafka",
            "2.10.0",
            "User:alice",
            ClientInstance.PRODUCER,
            null,
            List.of(),
            1,
            true,
            S,
            Map.of(ClientFigure.RECORD_QUEUE_TIME, new ClientInstance.Aggregate(0, 0)));
    r.put(closing, S);

    ClientInstance kept = r.snapshot(S).get(0);
    assertThat(kept.terminating()).isTrue();
    assertThat(kept.lastPushNanos()).isEqualTo(S);
    assertThat(kept.figure(ClientFigure.RECORD_QUEUE_TIME).max()).isEqualTo(20);
  }

  @Test
  void anInstanceSilentPastStaleAfterLeavesCounted() {
    ClientInstances r = new ClientInstances(100, Long.MAX_VALUE, 60 * S);
    r.put(instance("a", "a", 0), 0);
    r.put(instance("b", "b", 30 * S), 30 * S);
    assertThat(r.snapshot(59 * S)).hasSize(2);
    assertThat(r.snapshot(60 * S))
        .extracting(ClientInstance::clientInstanceId)
        .containsExactly("b");
    assertThat(r.evictions()).containsEntry(ClientInstances.STALE, 1L);
    assertThat(r.evicted()).isZero();
    assertThat(r.estimatedBytes()).isEqualTo(ClientInstances.estimatedBytes(instance("b", "b", 0)));
  }

  @Test
  void aClientServesTheBreakdownsOfItsTopicAndGroup() {
    ClientInstance producer = instance("p", "p", 0, "orders");
    ClientInstance rdkafkaProducer = instance("r", "r", 0);
    ClientInstance consumer =
        new ClientInstance(
            "c",
            "c",
            "",
            "",
            "",
            ClientInstance.CONSUMER,
            "billing",
            List.of("orders"),
            -1,
            false,
            0,
            Map.of());
    assertThat(producer.serves("orders", "billing")).isTrue();
    assertThat(producer.serves("payments", null)).isFalse();
    assertThat(producer.serves(null, "billing")).isFalse();
    assertThat(rdkafkaProducer.serves("payments", null)).isTrue(); // names no topic
    assertThat(consumer.serves("orders", "billing")).isTrue();
    assertThat(consumer.serves("orders", "risk")).isFalse();
    assertThat(consumer.serves("payments", "billing")).isFalse();
    assertThat(consumer.serves(null, null)).isTrue();
  }
}
