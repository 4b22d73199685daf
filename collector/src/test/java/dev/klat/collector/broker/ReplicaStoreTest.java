package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicaStoreTest {

  @Test
  void describedPartitionsWinAndOneLiveBrokerMeansNoFollower() {
    ReplicaStore store = new ReplicaStore();
    assertThat(store.replicationFactor("orders", 0)).isEqualTo(-1);
    assertThat(store.wanted()).containsExactly("orders");

    store.liveBrokers(1);
    assertThat(store.replicationFactor("orders", 0)).isEqualTo(1);

    store.liveBrokers(3);
    store.counts(Map.of("orders", new int[] {3, 1}));
    assertThat(store.replicationFactor("orders", 0)).isEqualTo(3);
    assertThat(store.replicationFactor("orders", 1)).isEqualTo(1);
    assertThat(store.replicationFactor("orders", 2)).isEqualTo(-1);
    assertThat(store.replicationFactor("other", 0)).isEqualTo(-1);
    assertThat(store.wanted()).containsExactlyInAnyOrder("orders", "other");
  }

  @Test
  void aTopicAskedAfterTheCapEvictsTheLeastRecentlyAskedInsteadOfBeingIgnoredForGood() {
    ReplicaStore store = new ReplicaStore();
    for (int i = 0; i < ReplicaStore.MAX_TOPICS; i++) {
      store.replicationFactor("topic-" + i, 0);
    }
    store.replicationFactor("topic-0", 0); // asked again: the most recent

    store.replicationFactor("new-topic", 0);

    assertThat(store.wanted())
        .hasSizeLessThanOrEqualTo(ReplicaStore.MAX_TOPICS)
        .contains("new-topic", "topic-0", "topic-9999")
        .doesNotContain("topic-1");
    assertThat(store.evicted()).isPositive();
  }
}
