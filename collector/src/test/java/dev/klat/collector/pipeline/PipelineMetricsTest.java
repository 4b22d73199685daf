package dev.klat.collector.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.pipeline.ChainFixture.Hop;
import dev.klat.model.TagKeys;
import org.junit.jupiter.api.Test;

/** {@link PipelineMetrics}: pipeline histograms, each chain once, pipelines capped. */
class PipelineMetricsTest {

  private static void twoHops(ChainFixture f, String firstTopic, long offset, String lastGroup) {
    Hop in = f.record(firstTopic, offset, "app-" + firstTopic, 0).instances(1, 2).add();
    f.output(in, firstTopic + "-out", offset, lastGroup, 2).instances(2, 3).linkedTo(in).add();
  }

  @Test
  void eachChainIsRecordedOnceWithItsHopsSegmentsAndProcessing() {
    ChainFixture f = new ChainFixture();
    twoHops(f, "orders", 1, "billing");
    PipelineMetrics m = new PipelineMetrics(50, PipelineNames.NONE, 300_000_000_000L);

    m.update(f.window(), 10);
    m.update(f.window(), 20); // nothing new
    twoHops(f, "orders", 2, "billing");
    m.update(f.window(), 30);

    assertThat(m.latencySeries()).hasSize(1);
    Exposition.Series e2e = m.latencySeries().get(0);
    assertThat(e2e.labels()).containsEntry(TagKeys.PIPELINE, "orders->billing");
    assertThat(e2e.count()).isEqualTo(2);
    assertThat(e2e.sum()).isCloseTo(2 * 0.032, org.assertj.core.data.Offset.offset(1e-9));
    // Two hops of five segments, and the first hop's processing.
    assertThat(m.hopSeries()).hasSize(11);
    assertThat(m.hopSeries())
        .filteredOn(s -> s.labels().get(TagKeys.SEGMENT).equals(Pipelines.PROCESSING))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.labels()).containsEntry(TagKeys.HOP, "1");
              assertThat(s.count()).isEqualTo(2);
            });
    assertThat(m.evictions()).isZero();
  }

  @Test
  void pipelinesBeyondTheCapEvictTheOneUpdatedLongestAgo() {
    ChainFixture f = new ChainFixture();
    PipelineMetrics m = new PipelineMetrics(2, PipelineNames.NONE, 300_000_000_000L);
    twoHops(f, "a", 1, "ga");
    m.update(f.window(), 1);
    twoHops(f, "b", 1, "gb");
    m.update(f.window(), 2);
    twoHops(f, "a", 2, "ga");
    m.update(f.window(), 3); // a is the most recently updated now
    twoHops(f, "c", 1, "gc");
    m.update(f.window(), 4);

    assertThat(m.evictions()).isEqualTo(1);
    assertThat(m.latencySeries())
        .extracting(s -> s.labels().get(TagKeys.PIPELINE))
        .containsExactlyInAnyOrder("a->ga", "c->gc");
  }
}
