package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.Breakdown;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AdminServerTest {

  private static JoinedBreakdown joined(EstimationMethod appendMethod) {
    long s = 1_000_000_000L;
    Instants.Builder b =
        Instants.builder()
            .send(s)
            .drain(s + 1_000_000)
            .commit(s + 3_000_000, EstimationMethod.FETCH_RESPONSE_BOUND)
            .fetchRequest(s + 3_000_000)
            .fetchResponse(s + 3_000_000)
            .poll(s + 4_000_000);
    if (appendMethod != null) {
      b.append(s + 2_000_000, appendMethod);
    }
    return new JoinedBreakdown(
        new RecordKey("orders", 0, 0),
        "billing",
        1,
        2,
        3,
        4,
        Breakdown.compute(b.build()),
        new ClockOffset("a", "b", 0, 0, 0, 0),
        null,
        Set.of(),
        false,
        1,
        -1,
        -1,
        -1,
        ProducerEvidence.UNKNOWN,
        ConsumerEvidence.UNKNOWN);
  }

  @Test
  void theBreakdownJsonCountsEachSegmentsQualities() {
    RecentBreakdowns recent = new RecentBreakdowns(10);
    recent.add(joined(null), 0);
    recent.add(joined(EstimationMethod.LOG_APPEND_TIMESTAMP), 0);
    recent.add(joined(EstimationMethod.BROKER_PROBE), 0);
    String json =
        SummaryJson.breakdown(
            "orders", null, 300_000_000_000L, recent.summarise("orders", null, 10, 0));

    assertThat(json).startsWith("{\"topic\":\"orders\",\"group\":null,\"windowSeconds\":300,");
    assertThat(json)
        .contains(
            "\"produce\":{\"count\":3,\"p50Seconds\":0.001,\"p99Seconds\":0.001,"
                + "\"quality\":{\"exact\":3,\"log-append-time\":0,\"client-clock\":0,\"create-time\":0,\"estimated\":0,\"none\":0}}",
            "\"publish\":{\"count\":2,\"p50Seconds\":0.001,\"p99Seconds\":0.001,"
                + "\"quality\":{\"exact\":1,\"log-append-time\":1,\"client-clock\":0,\"create-time\":0,\"estimated\":0,\"none\":1}}",
            "\"publish+commit\":{\"count\":3,\"p50Seconds\":0.002,\"p99Seconds\":0.002,"
                + "\"quality\":{\"exact\":0,\"log-append-time\":0,\"client-clock\":0,\"create-time\":0,\"estimated\":3,\"none\":0}}");
    assertThat(json).endsWith("\"pairs\":[],\"pairsNotShown\":0}}");
  }
}
