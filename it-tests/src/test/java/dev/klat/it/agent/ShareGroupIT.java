package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Share groups (KIP-932, section 11 of the latency model) on a real 4.4.0 broker, whose share
 * groups are on from its first start ({@code share.version} 2 is 4.4's default; the test checks the
 * finalized level, and raises it to 1 where a cluster has it off), with the acquisition lock
 * lowered to {@value #LOCK_MS} ms. {@link ShareApp} runs a producer and two share consumers on
 * kafka-clients 4.4.0 with the agent, sampling every record, exporting through a tee in front of
 * the collector ({@link OtlpReceiver#teeTo}): group {@value ShareApp#EXPLICIT} accepts its normal
 * records, holds one record past its lock (the broker refuses its late acceptance, and delivers it
 * again) and releases another (delivered again); group {@value ShareApp#IMPLICIT} accepts every
 * record implicitly at its next poll or commit.
 *
 * <p>The agents' spans must carry, per delivery, the group type, the delivery count, {@code F <= R
 * <= P <= K} and the acknowledgement's type and the broker's error ({@code
 * InvalidRecordStateException} for the held record's first delivery); the every-record histograms
 * must count every delivery per share group, and the redelivery counter the two redeliveries. The
 * collector's {@code /api/breakdown} for the explicit group must then show the same deliveries
 * joined: two records redelivered, one after a lock timeout and one after a release, with their
 * redelivery parts (section 11; its {@code share} object).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ShareGroupIT {

  static final long LOCK_MS = 2_000;
  static final long HOLD_MS = LOCK_MS + 1_500;
  static final int NORMAL = 20;
  // 4.4.0 in CI; -Dklat.share.clients=4.1.2,4.4.0 adds the oldest share consumer the agent reads.
  static final List<String> CLIENTS =
      List.of(System.getProperty("klat.share.clients", "4.4.0").split(","));

  @Test
  void deliveriesCarryTheirCountAcknowledgementAndTheBrokersAnswer() throws Exception {
    long startedNanos = System.nanoTime();
    int otlpPort = CollectorEndToEndIT.freePort();
    int adminPort = CollectorEndToEndIT.freePort();
    String collectorEndpoint = "http://127.0.0.1:" + otlpPort;
    Process collector =
        CollectorEndToEndIT.startCollector(
            otlpPort, adminPort, "--otlp.grpc.enabled=false", "--join.window=5s");
    SoftAssertions softly = new SoftAssertions();
    try (OtlpReceiver tee = OtlpReceiver.teeTo(collectorEndpoint);
        KafkaCluster cluster =
            KafkaClusterSpec.brokers(1)
                .name("share")
                .brokerProperty("offsets.topic.num.partitions", "1")
                .brokerProperty("offsets.topic.replication.factor", "1")
                .brokerProperty("share.coordinator.state.topic.num.partitions", "1")
                .brokerProperty("share.coordinator.state.topic.replication.factor", "1")
                .brokerProperty("share.coordinator.state.topic.min.isr", "1")
                .brokerProperty("group.share.min.record.lock.duration.ms", "1000")
                .brokerProperty("group.share.record.lock.duration.ms", Long.toString(LOCK_MS))
                // A share group's members heartbeat every 5 s by default, and get their
                // partitions at a heartbeat: the first delivery would wait that long.
                .brokerProperty("group.share.min.heartbeat.interval.ms", "500")
                .brokerProperty("group.share.heartbeat.interval.ms", "500")
                .brokerProperty("group.share.assignment.interval.ms", "0")
                .brokerProperty("group.share.initialize.retry.interval.ms", "1000")
                .start()) {
      short shareVersion = enableShareGroups(cluster);
      log("broker up, share.version=%d at %d s", shareVersion, secondsSince(startedNanos));
      CollectorEndToEndIT.awaitHealthy(adminPort, collector);

      for (String clients : CLIENTS) {
        checkClients(cluster, tee, adminPort, softly, clients, startedNanos);
      }
      softly.assertThat(tee.errors()).isEmpty();
      log("checked at %d s", secondsSince(startedNanos));
    } finally {
      collector.destroy();
      collector.waitFor(10, TimeUnit.SECONDS);
    }
    softly.assertAll();
  }

  static final long MS = 1_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  // One run of ShareApp on kafka-clients {@code clients}, on a topic of its own.
  private static void checkClients(
      KafkaCluster cluster,
      OtlpReceiver tee,
      int adminPort,
      SoftAssertions softly,
      String clients,
      long startedNanos)
      throws Exception {
    String topic = "share-orders-" + clients.replace('.', '-');
    cluster.createTopic(TopicSpec.named(topic).partitions(1).build());
    AppJvm.Result run =
        AppJvm.run(
            clients,
            AppJvm.agentOptions(tee.endpoint(), "1.0"),
            ShareApp.class,
            cluster.bootstrapServers(),
            topic,
            Integer.toString(NORMAL),
            Long.toString(HOLD_MS));
    log("%s: application done at %d s", clients, secondsSince(startedNanos));
    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).contains("done");
    assertThat(run.output()).doesNotContain("klat hook");
    Map<String, Long> offsets = offsetsByKey(run.output());
    assertThat(offsets).as(run.output()).containsKeys(ShareApp.HOLD, ShareApp.RELEASE);

    // Explicit: NORMAL + 2 first deliveries + 2 redeliveries; implicit: NORMAL + 2.
    int expectedExplicit = NORMAL + 4;
    int expectedImplicit = NORMAL + 2;
    List<Span> explicit = awaitConsumerSpans(tee, topic, ShareApp.EXPLICIT, expectedExplicit);
    List<Span> implicit = awaitConsumerSpans(tee, topic, ShareApp.IMPLICIT, expectedImplicit);
    log("%s: spans in at %d s", clients, secondsSince(startedNanos));
    softly.assertThat(explicit).as("explicit group's delivery spans").hasSize(expectedExplicit);
    softly.assertThat(implicit).as("implicit group's delivery spans").hasSize(expectedImplicit);

    long heldOffset = offsets.get(ShareApp.HOLD);
    long releasedOffset = offsets.get(ShareApp.RELEASE);
    for (Span span : explicit) {
      long offset = longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name());
      long count = longAttribute(span, SpanAttributes.SHARE_DELIVERY_COUNT.name());
      String type =
          OtlpReceiver.stringAttribute(span, SpanAttributes.SHARE_ACKNOWLEDGE_TYPE.name());
      String error =
          OtlpReceiver.stringAttribute(span, SpanAttributes.SHARE_ACKNOWLEDGE_ERROR.name());
      String label = "explicit offset " + offset + " delivery " + count;
      assertInstantsInOrder(softly, span, label);
      softly
          .assertThat(OtlpReceiver.stringAttribute(span, SpanAttributes.CONSUMER_GROUP_TYPE.name()))
          .as(label)
          .isEqualTo(SpanAttributes.GROUP_TYPE_SHARE);
      if (offset == heldOffset && count == 1) {
        softly.assertThat(type).as(label).isEqualTo("accept");
        softly.assertThat(error).as(label).isEqualTo("InvalidRecordStateException");
        long heldNanos =
            longAttribute(span, SpanAttributes.SHARE_ACKNOWLEDGE_TIME.name())
                - longAttribute(span, SpanAttributes.POLL_TIME.name());
        softly.assertThat(heldNanos).as(label + ": K - P").isGreaterThanOrEqualTo(HOLD_MS * MS);
      } else if (offset == releasedOffset && count == 1) {
        softly.assertThat(type).as(label).isEqualTo("release");
        softly.assertThat(error).as(label).isNull();
      } else {
        softly
            .assertThat(count)
            .as(label)
            .isEqualTo(offset == heldOffset || offset == releasedOffset ? 2 : 1);
        softly.assertThat(type).as(label).isEqualTo("accept");
        softly.assertThat(error).as(label).isNull();
      }
    }
    for (Span span : implicit) {
      long offset = longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name());
      String label = "implicit offset " + offset;
      assertInstantsInOrder(softly, span, label);
      softly
          .assertThat(longAttribute(span, SpanAttributes.SHARE_DELIVERY_COUNT.name()))
          .as(label)
          .isEqualTo(1);
      softly
          .assertThat(
              OtlpReceiver.stringAttribute(span, SpanAttributes.SHARE_ACKNOWLEDGE_TYPE.name()))
          .as(label)
          .isEqualTo("accept");
    }

    // What section 11 makes of them: the redelivery part F(2) - R(1), on one host here.
    for (long offset : List.of(heldOffset, releasedOffset)) {
      Span first = delivery(explicit, offset, 1);
      Span second = delivery(explicit, offset, 2);
      softly.assertThat(first).as("offset %d delivery 1", offset).isNotNull();
      softly.assertThat(second).as("offset %d delivery 2", offset).isNotNull();
      if (first != null && second != null) {
        long redeliveryNanos =
            longAttribute(second, SpanAttributes.FETCH_REQUEST_TIME.name())
                - longAttribute(first, SpanAttributes.FETCH_RESPONSE_TIME.name());
        long heldNanos =
            longAttribute(first, SpanAttributes.SHARE_ACKNOWLEDGE_TIME.name())
                - longAttribute(first, SpanAttributes.POLL_TIME.name());
        log(
            "offset %d (%s): K(1) - P(1) %.1f ms, redelivery F(2) - R(1) %.1f ms",
            offset,
            offset == heldOffset ? "held" : "released",
            heldNanos / 1e6,
            redeliveryNanos / 1e6);
        if (offset == heldOffset) {
          // The lock expired while the application held the record: at least the lock.
          softly
              .assertThat(redeliveryNanos)
              .as("held record's redelivery")
              .isGreaterThan(LOCK_MS * MS);
        }
      }
    }

    // The collector's view of the same deliveries: /api/breakdown's share object (section 11).
    checkBreakdown(softly, adminPort, topic, heldOffset, releasedOffset);
    log("%s: breakdown checked at %d s", clients, secondsSince(startedNanos));

    // Every record: each delivery counted once in its share group's histograms.
    for (String group : List.of(ShareApp.EXPLICIT, ShareApp.IMPLICIT)) {
      long expected = group.equals(ShareApp.EXPLICIT) ? expectedExplicit : expectedImplicit;
      for (String histogram :
          List.of(
              "klat.e2e.latency", "klat.consumer.fetch.latency", "klat.consumer.buffer.latency")) {
        HistogramDataPoint point = tee.latestHistogram(histogram, "topic", topic, "group", group);
        softly
            .assertThat(point == null ? 0 : point.getCount())
            .as(histogram + " of " + group)
            .isEqualTo(expected);
      }
    }
    softly
        .assertThat(
            tee.latestCounter(
                "klat.consumer.share.redeliveries", "topic", topic, "group", ShareApp.EXPLICIT))
        .as("redeliveries of the explicit group")
        .isEqualTo(2L);
    softly
        .assertThat(
            Optional.ofNullable(
                    tee.latestCounter(
                        "klat.consumer.share.redeliveries",
                        "topic",
                        topic,
                        "group",
                        ShareApp.IMPLICIT))
                .orElse(0L))
        .as("redeliveries of the implicit group")
        .isZero();
  }

  // F <= R <= P <= K, and S before F: the instants of one delivery on one host.
  private static void assertInstantsInOrder(SoftAssertions softly, Span span, String label) {
    long send = longAttribute(span, SpanAttributes.SEND_TIME.name());
    long request = longAttribute(span, SpanAttributes.FETCH_REQUEST_TIME.name());
    long response = longAttribute(span, SpanAttributes.FETCH_RESPONSE_TIME.name());
    long poll = longAttribute(span, SpanAttributes.POLL_TIME.name());
    long acknowledged = longAttribute(span, SpanAttributes.SHARE_ACKNOWLEDGE_TIME.name());
    softly.assertThat(send).as(label + ": S").isPositive();
    softly.assertThat(request).as(label + ": F").isPositive();
    softly.assertThat(response).as(label + ": R").isGreaterThanOrEqualTo(request);
    softly.assertThat(poll).as(label + ": P").isGreaterThanOrEqualTo(response);
    softly.assertThat(acknowledged).as(label + ": K").isGreaterThanOrEqualTo(poll);
  }

  // share.version: 2 by default on a new 4.4 cluster; raised to 1 where it is off (4.1's default).
  private static short enableShareGroups(KafkaCluster cluster) throws Exception {
    try (Admin admin = Admin.create(cluster.clientProperties())) {
      FinalizedVersionRange range =
          admin.describeFeatures().featureMetadata().get().finalizedFeatures().get("share.version");
      short level = range == null ? 0 : range.maxVersionLevel();
      if (level < 1) {
        admin
            .updateFeatures(
                Map.of(
                    "share.version",
                    new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)),
                new UpdateFeaturesOptions())
            .all()
            .get();
        level = 1;
      }
      // A share group reads from the start of the topic, not from its end (the default).
      List<AlterConfigOp> earliest =
          List.of(
              new AlterConfigOp(
                  new ConfigEntry("share.auto.offset.reset", "earliest"),
                  AlterConfigOp.OpType.SET));
      Map<ConfigResource, java.util.Collection<AlterConfigOp>> configs = new HashMap<>();
      for (String group : List.of(ShareApp.EXPLICIT, ShareApp.IMPLICIT)) {
        configs.put(new ConfigResource(ConfigResource.Type.GROUP, group), earliest);
      }
      admin.incrementalAlterConfigs(configs).all().get();
      return level;
    }
  }

  /**
   * The explicit group's records as the collector joined them: every record once, the held and the
   * released one redelivered, the held one's first delivery ended by its lock (its late acceptance
   * refused), the released one's by its release, and both redelivery parts known (one host) and at
   * least the lock's duration for the held one.
   */
  private static void checkBreakdown(
      SoftAssertions softly, int adminPort, String topic, long heldOffset, long releasedOffset)
      throws Exception {
    String query = "/api/breakdown?topic=" + topic + "&group=" + ShareApp.EXPLICIT + "&window=10m";
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    JsonNode share = null;
    while (System.nanoTime() < deadline) {
      JsonNode answer = JSON.readTree(CollectorEndToEndIT.get(adminPort, query, null));
      share = answer.get("share");
      if (share != null
          && share.path("records").asInt() >= NORMAL + 2
          && share.path("redelivery").path("known").asInt() >= 2) {
        break;
      }
      Thread.sleep(250);
    }
    softly.assertThat(share).as("share object of " + query).isNotNull();
    if (share == null) {
      return;
    }
    log("share object: %s", share);
    softly.assertThat(share.path("records").asInt()).as("records").isEqualTo(NORMAL + 2);
    softly.assertThat(share.path("redeliveredRecords").asInt()).as("redelivered").isEqualTo(2);
    softly.assertThat(share.at("/ends/lock-timeout").asInt()).as("lock-timeout ends").isEqualTo(1);
    softly.assertThat(share.at("/ends/release").asInt()).as("release ends").isEqualTo(1);
    softly.assertThat(share.at("/redelivery/known").asInt()).as("redelivery known").isEqualTo(2);
    softly.assertThat(share.at("/redelivery/unknown").asInt()).as("redelivery unknown").isZero();
    JsonNode held = null;
    for (JsonNode record : share.path("slowestRedelivered")) {
      if (record.path("offset").asLong() == heldOffset) {
        held = record;
      }
    }
    softly.assertThat(held).as("held record among the slowest redelivered").isNotNull();
    if (held != null) {
      softly.assertThat(held.path("deliveryCount").asInt()).isEqualTo(2);
      softly.assertThat(held.path("accepted").asBoolean()).isTrue();
      softly
          .assertThat(held.path("redeliverySeconds").asDouble())
          .as("held record's redelivery part")
          .isGreaterThan(LOCK_MS / 1000.0);
      softly.assertThat(held.at("/deliveries/0/end").asText()).isEqualTo("lock-timeout");
      softly
          .assertThat(held.at("/deliveries/0/ackError").asText())
          .isEqualTo("InvalidRecordStateException");
      softly.assertThat(held.at("/deliveries/1/end").asText()).isEqualTo("accept");
    }
  }

  private static Span delivery(List<Span> spans, long offset, long count) {
    for (Span span : spans) {
      if (longAttribute(span, SpanAttributes.MESSAGING_KAFKA_OFFSET.name()) == offset
          && longAttribute(span, SpanAttributes.SHARE_DELIVERY_COUNT.name()) == count) {
        return span;
      }
    }
    return null;
  }

  private static List<Span> awaitConsumerSpans(
      OtlpReceiver tee, String topic, String group, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<Span> found = consumerSpans(tee, topic, group);
    while (found.size() < expected && System.nanoTime() < deadline) {
      Thread.sleep(100);
      found = consumerSpans(tee, topic, group);
    }
    return found;
  }

  private static List<Span> consumerSpans(OtlpReceiver tee, String topic, String group) {
    List<Span> found = new ArrayList<>();
    for (Span span : tee.spans()) {
      if (span.getKind() == Span.SpanKind.SPAN_KIND_CONSUMER
          && topic.equals(
              OtlpReceiver.stringAttribute(span, SpanAttributes.MESSAGING_DESTINATION_NAME.name()))
          && group.equals(
              OtlpReceiver.stringAttribute(
                  span, SpanAttributes.MESSAGING_CONSUMER_GROUP_NAME.name()))) {
        found.add(span);
      }
    }
    return found;
  }

  // "delivered group=share-explicit key=hold offset=21 count=1" -> hold: 21.
  private static Map<String, Long> offsetsByKey(String output) {
    Map<String, Long> offsets = new HashMap<>();
    output
        .lines()
        .filter(line -> line.startsWith("delivered "))
        .forEach(
            line -> {
              String key = field(line, "key");
              offsets.put(key, Long.parseLong(field(line, "offset")));
            });
    return offsets;
  }

  private static String field(String line, String name) {
    for (String part : line.split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    throw new AssertionError("no " + name + " in " + line);
  }

  static long longAttribute(Span span, String key) {
    for (KeyValue kv : span.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        return kv.getValue().getIntValue();
      }
    }
    return 0L;
  }

  private static long secondsSince(long startedNanos) {
    return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
  }

  private static void log(String format, Object... args) {
    System.out.printf("[ShareGroupIT] " + format + "%n", args);
  }
}
