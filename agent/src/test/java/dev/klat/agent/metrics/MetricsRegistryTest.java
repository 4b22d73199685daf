package dev.klat.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.model.MetricDef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MetricsRegistryTest {

  @Test
  void returnsTheSameInstrumentForTheSameMetricAndTags() {
    MetricsRegistry registry = new MetricsRegistry();
    LatencyHistogram a = registry.histogram(MetricDef.E2E_LATENCY, "orders", "billing");
    LatencyHistogram b = registry.histogram(MetricDef.E2E_LATENCY, "orders", "billing");
    LatencyHistogram c = registry.histogram(MetricDef.E2E_LATENCY, "orders", "shipping");

    assertThat(a).isSameAs(b).isNotSameAs(c);
    assertThat(registry.seriesCount()).isEqualTo(2);
  }

  @Test
  void sameTagValuesOfDifferentMetricsAreDifferentSeries() {
    MetricsRegistry registry = new MetricsRegistry();
    assertThat(registry.histogram(MetricDef.PRODUCER_LATENCY, "t", "c"))
        .isNotSameAs(registry.histogram(MetricDef.PRODUCER_PRODUCE_LATENCY, "t", "c"));
  }

  @Test
  void rejectsAWrongNumberOfTagValues() {
    MetricsRegistry registry = new MetricsRegistry();
    assertThatThrownBy(() -> registry.histogram(MetricDef.E2E_LATENCY, "orders"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("klat.e2e.latency");
    assertThatThrownBy(() -> registry.counter(MetricDef.AGENT_HEADERS_INVALID))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> registry.counter(MetricDef.AGENT_HEADERS_INVALID, (String[]) null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsAnInstrumentOfAnotherType() {
    MetricsRegistry registry = new MetricsRegistry();
    assertThatThrownBy(() -> registry.counter(MetricDef.E2E_LATENCY, "t", "g"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HISTOGRAM");
    assertThatThrownBy(() -> registry.histogram(MetricDef.AGENT_HEADERS_INVALID, "r"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> registry.gauge(MetricDef.AGENT_HEADERS_INVALID, "r"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> registry.histogram(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aNullTagValueIsTheEmptyString() {
    MetricsRegistry registry = new MetricsRegistry();
    assertThat(registry.histogram(MetricDef.E2E_LATENCY, "t", null))
        .isSameAs(registry.histogram(MetricDef.E2E_LATENCY, "t", ""));
  }

  @Test
  void pastMaxSeriesReturnsTheSharedOverflowInstrumentAndCountsIt() {
    MetricsRegistry registry = new MetricsRegistry(2);
    LatencyHistogram first = registry.histogram(MetricDef.E2E_LATENCY, "t1", "g");
    registry.counter(MetricDef.AGENT_HEADERS_INVALID, "too_short");
    LatencyHistogram third = registry.histogram(MetricDef.E2E_LATENCY, "t3", "g");
    LatencyHistogram fourth = registry.histogram(MetricDef.E2E_LATENCY, "t4", "g");
    Counter overflowCounter = registry.counter(MetricDef.AGENT_HEADERS_INVALID, "other");

    assertThat(third).isSameAs(fourth).isNotSameAs(first);
    assertThat(registry.histogram(MetricDef.E2E_LATENCY, "t1", "g")).isSameAs(first);
    assertThat(overflowCounter).isNotNull();
    assertThat(registry.seriesCount()).isEqualTo(2);
    assertThat(registry.overflowCount()).isEqualTo(3);

    third.recordNanos(5_000);
    fourth.recordNanos(6_000);
    MetricFamily e2e = family(registry.collect(), MetricDef.E2E_LATENCY.name());
    assertThat(e2e.points).hasSize(1); // t1 is empty and skipped
    assertThat(e2e.points.get(0).tagValues).containsExactly("_other", "_other");
    assertThat(e2e.points.get(0).histogram.count()).isEqualTo(2);
  }

  @Test
  void withZeroMaxSeriesEverythingOverflows() {
    MetricsRegistry registry = new MetricsRegistry(0);
    registry.counter(MetricDef.AGENT_HEADERS_INVALID, "a").increment();
    assertThat(registry.seriesCount()).isZero();
    assertThat(registry.overflowCount()).isEqualTo(1);
  }

  @Test
  void concurrentCreationNeverExceedsMaxSeriesAndAgreesOnInstances() throws Exception {
    MetricsRegistry registry = new MetricsRegistry(10);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<Counter>>> futures = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      futures.add(
          pool.submit(
              () -> {
                go.await();
                List<Counter> got = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                  got.add(registry.counter(MetricDef.AGENT_HEADERS_INVALID, "r" + i));
                }
                return got;
              }));
    }
    go.countDown();
    List<List<Counter>> results = new ArrayList<>();
    for (Future<List<Counter>> f : futures) {
      results.add(f.get(10, TimeUnit.SECONDS));
    }
    pool.shutdown();

    assertThat(registry.seriesCount()).isEqualTo(10);
    Set<Counter> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    for (List<Counter> r : results) {
      distinct.addAll(r);
    }
    // At most 10 real series plus the one overflow counter, whichever thread created them.
    assertThat(distinct).hasSizeLessThanOrEqualTo(11);
    // A thread that lost the race for the last free slot may get the overflow counter for a key
    // another thread registered; every answer is one of the two.
    Counter overflow = registry.counter(MetricDef.AGENT_HEADERS_INVALID, "never-requested");
    for (int i = 0; i < 100; i++) {
      Counter registered = registry.counter(MetricDef.AGENT_HEADERS_INVALID, "r" + i);
      for (List<Counter> r : results) {
        assertThat(r.get(i)).isIn(registered, overflow);
      }
    }
  }

  @Test
  void collectKeepsZeroCountersAndSkipsEmptyHistogramsAndUnsetGauges() {
    MetricsRegistry registry = new MetricsRegistry();
    registry.counter(MetricDef.AGENT_HEADERS_INVALID, "bad_magic");
    registry.histogram(MetricDef.E2E_LATENCY, "t", "g");
    registry.gauge(MetricDef.CONSUMER_LAG_TIME, "t", "g", "0");
    registry.gauge(MetricDef.CONSUMER_LAG_TIME, "t", "g", "1").set(2.5);

    List<MetricFamily> families = registry.collect();
    assertThat(family(families, MetricDef.AGENT_HEADERS_INVALID.name()).points)
        .singleElement()
        .satisfies(p -> assertThat(p.longValue).isZero());
    assertThat(family(families, MetricDef.E2E_LATENCY.name()).points).isEmpty();
    assertThat(family(families, MetricDef.CONSUMER_LAG_TIME.name()).points)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.doubleValue).isEqualTo(2.5);
              assertThat(p.tagKeys).containsExactly("topic", "group", "partition");
              assertThat(p.tagValues).containsExactly("t", "g", "1");
            });
  }

  @Test
  void counterIgnoresNegativeAmounts() {
    Counter counter = new Counter();
    counter.increment();
    counter.add(5);
    counter.add(-3);
    counter.add(0);
    assertThat(counter.value()).isEqualTo(6);
  }

  @Test
  void gaugeStartsWithoutAValue() {
    Gauge gauge = new Gauge();
    assertThat(gauge.value()).isNaN();
    gauge.set(1.5);
    assertThat(gauge.value()).isEqualTo(1.5);
  }

  @Test
  void rejectsANegativeMaxSeries() {
    assertThatThrownBy(() -> new MetricsRegistry(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  static MetricFamily family(List<MetricFamily> families, String name) {
    return families.stream().filter(f -> f.name.equals(name)).findFirst().orElseThrow();
  }
}
