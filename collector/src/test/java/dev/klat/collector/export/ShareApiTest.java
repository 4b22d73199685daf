package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.ShareSummary;
import dev.klat.collector.aggregate.TopicGroup;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ShareSpans;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code /api/breakdown}'s {@code share} object (section 11 of the latency model): the names are
 * what the page and the share agent's integration test read, so this pins them.
 */
class ShareApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long WINDOW = 60_000_000_000L;

  private static RecentBreakdowns recent(List<JoinedBreakdown> breakdowns) {
    RecentBreakdowns recent = new RecentBreakdowns(1_000);
    for (JoinedBreakdown b : breakdowns) {
      recent.add(b, 1);
    }
    return recent;
  }

  private static JsonNode answer(RecentBreakdowns recent, String topic) throws Exception {
    ShareSummary share = recent.share(topic, null, WINDOW, 2, 10);
    String json =
        SummaryJson.breakdown(
            topic,
            null,
            WINDOW,
            recent.summarise(topic, null, WINDOW, 2),
            null,
            RecentBreakdowns.OpenTelemetryRecords.EMPTY,
            share);
    return JSON.readTree(json);
  }

  @Test
  void aShareGroupsBreakdownCountsItsRedeliveriesTheirCausesAndTheRedeliveryPart()
      throws Exception {
    // 97 records accepted at once, 3 redelivered after a lock timeout at 2 s.
    RecentBreakdowns recent = recent(ShareSpans.records("jobs", 97, 3, 2012));

    JsonNode share = answer(recent, "jobs").get("share");

    assertThat(share.get("records").asInt()).isEqualTo(100);
    assertThat(share.get("redeliveredRecords").asInt()).isEqualTo(3);
    assertThat(share.at("/deliveriesPerRecord/p50").asInt()).isEqualTo(1);
    assertThat(share.at("/deliveriesPerRecord/p99").asInt()).isEqualTo(2);
    assertThat(share.at("/deliveriesPerRecord/max").asInt()).isEqualTo(2);
    assertThat(share.at("/ends/lock-timeout").asInt()).isEqualTo(3);
    assertThat(share.at("/redelivery/known").asInt()).isEqualTo(3);
    assertThat(share.at("/redelivery/unknown").asInt()).isZero();
    // First acquired at R1 = 12 ms, the counted fetches at 2012, 2013, 2014 ms.
    assertThat(share.at("/redelivery/p50Seconds").asDouble()).isEqualTo(2.001);
    assertThat(share.at("/redelivery/p99Seconds").asDouble()).isEqualTo(2.002);
    // The p99 by nearest rank is the 99th of 100: the two slowest are at or above it.
    assertThat(share.at("/p99Tail/records").asInt()).isEqualTo(2);
    assertThat(share.at("/p99Tail/redelivered").asInt()).isEqualTo(2);
    assertThat(share.at("/p99Tail/redeliveryShare").asDouble()).isBetween(0.99, 1.0);
    JsonNode slowest = share.at("/slowestRedelivered/0");
    assertThat(slowest.get("offset").asLong()).isEqualTo(99);
    assertThat(slowest.get("deliveryCount").asInt()).isEqualTo(2);
    assertThat(slowest.get("accepted").asBoolean()).isTrue();
    assertThat(slowest.get("redeliverySeconds").asDouble()).isEqualTo(2.002);
    JsonNode first = slowest.at("/deliveries/0");
    assertThat(first.get("count").asInt()).isEqualTo(1);
    assertThat(first.get("end").asText()).isEqualTo("lock-timeout");
    assertThat(first.get("ackType").isNull()).isTrue();
    assertThat(first.get("ackUnixNano").isNull()).isTrue();
    assertThat(first.get("counted").asBoolean()).isFalse();
    JsonNode second = slowest.at("/deliveries/1");
    assertThat(second.get("end").asText()).isEqualTo("accept");
    assertThat(second.get("ackType").asText()).isEqualTo("accept");
    assertThat(second.get("counted").asBoolean()).isTrue();
    assertThat(second.get("consumerInstance").asText()).isEqualTo("2222");
  }

  @Test
  void aConsumerGroupsBreakdownHasNoShareObjectAndPairsMarkShareGroups() throws Exception {
    RecentBreakdowns recent = recent(ShareSpans.records("jobs", 5, 0, 0));

    assertThat(answer(recent, "orders").has("share")).isFalse();
    assertThat(answer(recent, "jobs").at("/share/redelivery/p50Seconds").isMissingNode())
        .as("no redelivered record: no quantiles, never zeros")
        .isTrue();
    assertThat(recent.busiestPairs(WINDOW, 2, 10))
        .containsExactly(new TopicGroup("jobs", ShareSpans.GROUP, 5, true));
  }
}
