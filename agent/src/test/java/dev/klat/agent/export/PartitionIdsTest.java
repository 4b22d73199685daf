package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PartitionIdsTest {

  @Test
  void theDecimalNumberAndForSmallPartitionsTheSameInstanceEveryTime() {
    for (int partition : new int[] {0, 1, 9, 10, 1023, 1024, 50_000, -1, Integer.MAX_VALUE}) {
      assertThat(PartitionIds.of(partition)).isEqualTo(Integer.toString(partition));
    }
    assertThat(PartitionIds.of(7)).isSameAs(PartitionIds.of(7));
    assertThat(PartitionIds.of(PartitionIds.CACHED_PARTITIONS - 1))
        .isSameAs(PartitionIds.of(PartitionIds.CACHED_PARTITIONS - 1));
  }
}
