package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.message.FetchResponseData;
import org.junit.jupiter.api.Test;

class HighWatermarksTest {

  @Test
  void readsTheResponsesHighWatermark() {
    assertThat(HighWatermarks.of(new FetchResponseData.PartitionData().setHighWatermark(42L)))
        .isEqualTo(42L);
  }

  @Test
  void unknownWhenThereIsNoPartitionDataOrItHasNoHighWatermark() {
    assertThat(HighWatermarks.of(null)).isEqualTo(-1L);
    assertThat(HighWatermarks.of("not partition data")).isEqualTo(-1L);
  }
}
