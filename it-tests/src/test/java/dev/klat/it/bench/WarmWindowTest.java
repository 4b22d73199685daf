package dev.klat.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.klat.it.bench.BenchSuite.Warm;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmWindowTest {

  @Test
  void measuresFromHalfTheRecordsToTheLastRecord() {
    WarmWindow window = new WarmWindow();
    // Before the client's first record: not a sample.
    window.add(0, 0, 100, 0, 0, Map.of("main", 10L));
    window.add(1_000, 400, 1_000, 500, 10, Map.of("main", 600L, "kafka", 100L));
    // The first sample with half of the 1,000 records starts the window.
    window.add(2_000, 500, 2_000, 700, 20, Map.of("main", 1_000L, "kafka", 200L));
    window.add(3_000, 800, 3_000, 800, 30, Map.of("main", 1_500L, "kafka", 300L));
    // The first sample with all of them ends it; the client's close after it is left out.
    window.add(4_000, 1_000, 4_000, 850, 40, Map.of("main", 2_000L, "kafka", 400L));
    window.add(5_000, 1_000, 9_000, 900, 50, Map.of("main", 2_500L, "kafka", 900L));

    Warm warm = Warm.parse(window.report());

    assertNotNull(warm);
    assertEquals(500, warm.records());
    assertEquals(250, warm.recordsPerSecond(), 1e-9);
    assertEquals(4, warm.cpuNanosPerRecord(), 1e-9);
    assertEquals(2, warm.threads().applicationNanos(), 1e-9);
    assertEquals(0.4, warm.threads().kafkaClientNanos(), 1e-9);
    assertEquals(0.3, warm.threads().jitNanos(), 1e-9);
    assertEquals(0.04, warm.threads().gcNanos(), 1e-9);
  }

  @Test
  void saysNothingWithoutTheClientsMetrics() {
    WarmWindow window = new WarmWindow();
    window.add(1_000, 0, 1_000, 0, 0, Map.of());
    window.add(2_000, 0, 2_000, 0, 0, Map.of());

    assertEquals("", window.report());
    assertNull(Warm.parse("CPU_NANOS=5\n"));
  }
}
