package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LatencyBucketsTest {

  @Test
  void theAgentLayoutRunsFromOneMicrosecondToTwoToThe37Nanoseconds() {
    long[] bounds = LatencyBuckets.agentUpperNanos();
    assertThat(bounds).hasSize(434);
    assertThat(bounds[0]).isEqualTo(1000L);
    assertThat(bounds[1]).isEqualTo(1024L);
    assertThat(bounds[bounds.length - 1]).isEqualTo(1L << 37);
    for (int i = 1; i < bounds.length; i++) {
      assertThat(bounds[i]).isGreaterThan(bounds[i - 1]);
      // At most 1/16 of the lower bound wide.
      assertThat((bounds[i] - bounds[i - 1]) * 16).isLessThanOrEqualTo(bounds[i - 1] + 16);
    }
  }

  @Test
  void everyValueFallsInTheFirstBucketWhoseBoundIsAtLeastIt() {
    long[] bounds = LatencyBuckets.agentUpperNanos();
    for (int i = 0; i < bounds.length; i++) {
      assertThat(LatencyBuckets.agentIndex(bounds[i])).isEqualTo(i);
      assertThat(LatencyBuckets.agentIndex(bounds[i] + 1)).isEqualTo(i + 1);
    }
    assertThat(LatencyBuckets.agentIndex(0)).isZero();
    assertThat(LatencyBuckets.agentIndex(Long.MAX_VALUE))
        .isEqualTo(LatencyBuckets.AGENT_BUCKET_COUNT - 1);
  }

  @Test
  void everyExposedBoundIsAnAgentBoundSoAgentHistogramsFoldExactly() {
    long[] agent = LatencyBuckets.agentUpperNanos();
    long[] exposed = LatencyBuckets.exposedUpperNanos();
    assertThat(exposed).hasSize(136);
    assertThat(exposed[0]).isEqualTo(589_824L);
    assertThat(exposed[exposed.length - 1]).isEqualTo(1L << 36);
    for (long bound : exposed) {
      assertThat(Arrays.binarySearch(agent, bound)).isNotNegative();
    }
    double[] agentSeconds = LatencyBuckets.seconds(agent);
    for (double bound : LatencyBuckets.seconds(exposed)) {
      assertThat(Arrays.binarySearch(agentSeconds, bound)).isNotNegative();
    }
  }
}
