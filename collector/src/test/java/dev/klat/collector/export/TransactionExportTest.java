package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.aggregate.TransactionPartsTest;
import dev.klat.model.SpanAttributes;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Section 9 in what the collector shows: commit's parts and the commit span's {@code V}. */
class TransactionExportTest {
  private static final long MS = 1_000_000L;
  private static final long WINDOW = 300_000 * MS;

  @Test
  void commitGainsItsPartsOnlyWhenARecordWaitedForItsTransaction() {
    RecentBreakdowns plain = new RecentBreakdowns(10);
    plain.add(TransactionPartsTest.breakdown("g", -1), 0);
    String without =
        SummaryJson.breakdown(
            "orders",
            "g",
            WINDOW,
            plain.summarise("orders", "g", WINDOW, 0),
            plain.commitParts("orders", "g", WINDOW, 0));
    assertThat(without).doesNotContain("parts");
    assertThat(without)
        .isEqualTo(
            SummaryJson.breakdown(
                "orders", "g", WINDOW, plain.summarise("orders", "g", WINDOW, 0)));

    RecentBreakdowns waited = new RecentBreakdowns(10);
    waited.add(TransactionPartsTest.breakdown("g", 83), 0);
    String with =
        SummaryJson.breakdown(
            "orders",
            "g",
            WINDOW,
            waited.summarise("orders", "g", WINDOW, 0),
            waited.commitParts("orders", "g", WINDOW, 0));
    assertThat(with)
        .contains(
            "\"parts\":{\"replication\":{\"p50Seconds\":0.001,\"p99Seconds\":0.001,"
                + "\"p999Seconds\":0.001},\"transaction\":{\"p50Seconds\":0.08,"
                + "\"p99Seconds\":0.08,\"p999Seconds\":0.08}}");
    assertThat(with).contains("\"commit\":{\"count\":1,\"p50Seconds\":0.081,");
  }

  @Test
  void theCommitSpanEndsAtVAndCarriesIt() {
    List<BreakdownSpan> spans = BreakdownSpans.of(TransactionPartsTest.breakdown("g", 83));
    SpanData commit =
        spans.stream().filter(s -> s.getName().equals("commit")).findFirst().orElseThrow();
    long s = 1_000_000_000L;

    assertThat(commit.getEndEpochNanos()).isEqualTo(s + 83 * MS);
    assertThat(commit.getAttributes().get(AttributeKey.longKey(SpanAttributes.VISIBLE_TIME.name())))
        .isEqualTo(s + 83 * MS);
    SpanData fetch =
        spans.stream().filter(x -> x.getName().equals("fetch")).findFirst().orElseThrow();
    assertThat(fetch.getStartEpochNanos()).isEqualTo(s + 83 * MS);

    List<BreakdownSpan> plain = BreakdownSpans.of(TransactionPartsTest.breakdown("g", -1));
    assertThat(
            plain.stream()
                .filter(x -> x.getName().equals("commit"))
                .findFirst()
                .orElseThrow()
                .getAttributes()
                .get(AttributeKey.longKey(SpanAttributes.VISIBLE_TIME.name())))
        .isNull();
  }
}
