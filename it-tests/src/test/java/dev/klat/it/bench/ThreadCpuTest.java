package dev.klat.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {

  @Test
  void splitsTheProcessCpuByThreadKindPerRecord() {
    String output =
        String.join(
            "\n",
            "1000 records sent, 5.0 records/sec",
            "THREAD_CPU_NANOS main=400000",
            "THREAD_CPU_NANOS kafka=200000",
            "THREAD_CPU_NANOS consumer_background_thread=50000",
            "THREAD_CPU_NANOS klat=30000",
            "THREAD_CPU_NANOS cpu=10000",
            "THREAD_CPU_NANOS Reference=5000",
            "GC_CPU_NANOS=70000",
            "CPU_NANOS=1000000");

    ThreadCpu cpu = ThreadCpu.parse(output, 1000, 1_000_000, 100_000);

    assertEquals(400, cpu.applicationNanos(), 1e-9);
    assertEquals(250, cpu.kafkaClientNanos(), 1e-9);
    assertEquals(30, cpu.klatNanos(), 1e-9);
    assertEquals(100, cpu.jitNanos(), 1e-9);
    assertEquals(70, cpu.gcNanos(), 1e-9);
    // The JVM's other threads are not listed: what the process spent beyond the listed threads.
    assertEquals(150, cpu.restNanos(), 1e-9);
  }

  @Test
  void aPairedMeanStatesItsInterval() {
    CpuBreakdown.PairedMean mean = CpuBreakdown.PairedMean.of(List.of(10.0, 12.0, 14.0, 16.0));

    assertEquals(13, mean.mean(), 1e-9);
    // sd = 2.582, 1.96 * sd / sqrt(4) = 2.53
    assertEquals(2.53, mean.halfWidth95(), 0.01);
    assertEquals("+13 ± 3", mean.format());
    assertTrue(Double.isNaN(CpuBreakdown.PairedMean.of(List.of(5.0)).halfWidth95()));
    assertEquals("+5", CpuBreakdown.PairedMean.of(List.of(5.0)).format());
  }
}
