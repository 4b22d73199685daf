package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The memory budget of {@code broker-probe/DESIGN.md} at 1,000 partitions, measured in a JVM of its
 * own ({@link ProbeFootprint}): the ring within 1.75 MiB, each busy partition within its 700 bytes
 * between exports and its 20 KiB just before one, the request buffer within its 4 MiB.
 */
class ProbeFootprintTest {

  @Test
  void aThousandBusyPartitionsStayWithinTheBudget() throws Exception {
    Map<String, Long> measured = run(1000);
    System.out.println("broker probe footprint at 1,000 partitions: " + measured);
    assertThat(measured.get("ring")).isBetween(1_000_000L, 7L << 18);
    assertThat(measured.get("perPartitionSteady")).isBetween(100L, 700L);
    // 200 ranges of each kind, in arrays grown to 256: 16 KiB, 1 KiB of commit followers, 2 KiB of
    // append request times and the partition's own state.
    assertThat(measured.get("perPartitionBeforeExport")).isBetween(10_000L, 20_480L);
    assertThat(measured.get("requestBuffer"))
        .isBetween(1L << 20, ProbeExporter.MAX_REQUEST_BYTES + (64L << 10));
  }

  private static Map<String, Long> run(int partitions) throws Exception {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                ProbeFootprint.class.getName(),
                Integer.toString(partitions))
            .redirectErrorStream(true)
            .start();
    StringBuilder output = new StringBuilder();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        output.append(line).append('\n');
      }
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output.toString()).isZero();
    Map<String, Long> values = new HashMap<>();
    for (String field : output.toString().trim().split("\\s+")) {
      String[] kv = field.split("=");
      values.put(kv[0], Long.parseLong(kv[1]));
    }
    return values;
  }
}
