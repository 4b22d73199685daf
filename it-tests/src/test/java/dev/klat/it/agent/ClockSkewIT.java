package dev.klat.it.agent;

import static dev.klat.it.agent.CollectorEndToEndIT.awaitHealthy;
import static dev.klat.it.agent.CollectorEndToEndIT.freePort;
import static dev.klat.it.agent.CollectorEndToEndIT.get;
import static dev.klat.it.agent.CollectorEndToEndIT.startCollector;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterExtension;
import dev.klat.kafka.cluster.TopicSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 6's clock skew case on real parts: the consumer's JVM runs with its agent's clock 250 ms
 * ahead ({@code klat.test.clock-offset}), the producer's without. Records flow one way only, so
 * only the agents' clock exchange with the collector can bound the consumer's clock from below:
 * with it the collector reports an offset of 250 ms, within a few ms, and the breakdowns' e2e and
 * consumer-side segments match what the application measured, instead of carrying the 250 ms.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClockSkewIT {

  private static final int RECORDS = 150;
  private static final long SKEW_NANOS = 250_000_000L;
  private static final Pattern CLOCK =
      Pattern.compile("\"offsetNanos\":(-?\\d+),\"uncertaintyNanos\":(null|\\d+)");
  private static final Pattern P50 = Pattern.compile("\"e2e\":\\{\"p50Seconds\":([0-9.eE-]+)");

  @RegisterExtension static final KafkaClusterExtension kafka = KafkaClusterExtension.brokers(1);

  @Test
  void aConsumerClock250MsAheadIsFoundAndCorrected() throws Exception {
    KafkaCluster cluster = kafka.cluster();
    cluster.createTopic(TopicSpec.named("skew").build());
    int otlpPort = freePort();
    int adminPort = freePort();
    String endpoint = "http://127.0.0.1:" + otlpPort;
    try (OtlpReceiver tempo = new OtlpReceiver()) {
      Process collector = startCollector(otlpPort, adminPort, tempo.endpoint());
      try {
        awaitHealthy(adminPort, collector);
        List<String> consumerOptions = new ArrayList<>(AppJvm.agentOptions(endpoint, "1.0"));
        consumerOptions.add("-Dklat.test.clock-offset=250ms");
        AppJvm.Running consumer =
            AppJvm.start(
                "4.4.0",
                consumerOptions,
                ConsumerApp.class,
                "consume",
                cluster.bootstrapServers(),
                "skew",
                "skew-group",
                "classic",
                Integer.toString(RECORDS),
                "0",
                "1500");
        consumer.awaitLine("READY");
        // The producer waits 1 s with its producer open before sending: its agent has exported
        // metrics, and so measured its clock against the collector's, before its first span.
        AppJvm.Result producer =
            AppJvm.run(
                "4.4.0",
                AppJvm.agentOptions(endpoint, "1.0"),
                ConsumerApp.class,
                "produce-later",
                cluster.bootstrapServers(),
                "skew",
                "-",
                "classic",
                Integer.toString(RECORDS),
                "10",
                "1000");
        assertThat(producer.exitCode()).as(producer.output()).isZero();
        AppJvm.Result app = consumer.await();
        assertThat(app.exitCode()).as(app.output()).isZero();
        assertThat(app.value("RECEIVED")).isEqualTo(Integer.toString(RECORDS));
        assertThat(app.output()).contains("klat.test.clock-offset=250ms");
        double appP50Ms = median(latenciesMs(app.output()));

        String query = "/api/breakdown?topic=skew&group=skew-group&window=10m";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String answer = get(adminPort, query, null);
        while (!answer.contains("\"count\":" + RECORDS) && System.nanoTime() < deadline) {
          Thread.sleep(250);
          answer = get(adminPort, query, null);
        }
        assertThat(answer).as("every record joined").contains("\"count\":" + RECORDS);

        // The collector found the consumer's clock 250 ms ahead, with both sides bounded.
        String clocks = get(adminPort, "/api/clocks", null);
        Matcher clock = CLOCK.matcher(clocks);
        assertThat(clock.find()).as(clocks).isTrue();
        assertThat(clock.group(2)).as("bounded: " + clocks).isNotEqualTo("null");
        assertThat(Math.abs(Long.parseLong(clock.group(1))))
            .as(clocks)
            .isBetween(SKEW_NANOS - 5_000_000L, SKEW_NANOS + 5_000_000L);
        assertThat(Long.parseLong(clock.group(2))).as(clocks).isLessThan(5_000_000L);
        assertThat(clock.find()).as("one pair of hosts: " + clocks).isFalse();

        // e2e as the application measured it (within 20% or 5 ms), not 250 ms more.
        Matcher p50 = P50.matcher(answer);
        assertThat(p50.find()).as(answer).isTrue();
        double klatP50Ms = Double.parseDouble(p50.group(1)) * 1000;
        assertThat(Math.abs(klatP50Ms - appP50Ms))
            .as("klat p50 %.2f ms, application p50 %.2f ms: %s", klatP50Ms, appP50Ms, answer)
            .isLessThanOrEqualTo(Math.max(5, 0.2 * appP50Ms));

        // The consumer-side segments carry the consumer's share of it, not the skew.
        String scrape = get(adminPort, "/metrics", null);
        double catchUpAndFetchMeanMs =
            (sum(scrape, "catch-up", "_sum") + sum(scrape, "fetch", "_sum"))
                * 1000
                / sum(scrape, "catch-up", "_count");
        assertThat(sum(scrape, "catch-up", "_count")).isEqualTo(RECORDS);
        assertThat(catchUpAndFetchMeanMs)
            .as("mean catch-up + fetch, application p50 %.2f ms", appP50Ms)
            .isLessThan(mean(latenciesMs(app.output())) + 5);
      } finally {
        collector.destroy();
        if (!collector.waitFor(10, TimeUnit.SECONDS)) {
          collector.destroyForcibly();
        }
      }
    }
  }

  private static List<Double> latenciesMs(String output) {
    List<Double> out = new ArrayList<>();
    for (String line : output.lines().toList()) {
      if (line.startsWith("LAT ")) {
        out.add(Long.parseLong(line.substring(line.lastIndexOf(' ') + 1)) / 1e6);
      }
    }
    assertThat(out).hasSize(RECORDS);
    return out;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  private static double mean(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
  }

  // Sums klat_segment_latency_seconds<suffix> of the topic's series for one segment, every quality.
  private static double sum(String scrape, String segment, String suffix) {
    double total = 0;
    for (String line : scrape.lines().toList()) {
      if (line.startsWith("klat_segment_latency_seconds" + suffix + "{")
          && line.contains("topic=\"skew\"")
          && line.contains("segment=\"" + segment + "\"")) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }
}
