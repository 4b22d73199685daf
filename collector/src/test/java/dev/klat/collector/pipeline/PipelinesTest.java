package dev.klat.collector.pipeline;

import static dev.klat.collector.pipeline.ChainFixture.MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.klat.collector.pipeline.ChainFixture.Hop;
import dev.klat.collector.pipeline.PipelinesReport.Edge;
import dev.klat.collector.pipeline.PipelinesReport.Pipeline;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Pipelines}: chains of linked records assembled from joined breakdowns (section 9). */
class PipelinesTest {

  private static Pipeline only(PipelinesReport report) {
    assertThat(report.pipelines()).hasSize(1);
    return report.pipelines().get(0);
  }

  private static Pipeline named(PipelinesReport report, String name) {
    return report.pipelines().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aThreeHopChainSplitsItsEndToEndIntoHopsAndProcessing() {
    ChainFixture f = new ChainFixture();
    // orders -> enricher -> orders-enriched -> shipper -> shipments -> billing; the enricher's
    // host clock is 7 ms ahead of the first producer's, which processing never sees: one clock.
    Hop first = f.record("orders", 1, "enricher", 0).instances(1, 2).clockAhead(7).add();
    Hop second =
        f.output(first, "orders-enriched", 1, "shipper", 4)
            .instances(2, 3)
            .segments(2, 2, 2, 2, 2)
            .linkedTo(first)
            .add();
    f.output(second, "shipments", 1, "billing", 3)
        .instances(3, 4)
        .segments(1, 1, 1, 1, 1)
        .linkedTo(second)
        .add();

    PipelinesReport report = f.report();
    Pipeline p = only(report);

    assertThat(p.name()).isEqualTo("orders->billing");
    assertThat(p.firstTopic()).isEqualTo("orders");
    assertThat(p.lastGroup()).isEqualTo("billing");
    assertThat(p.count()).isEqualTo(1);
    // 15 + 4 + 10 + 3 + 5 ms: the 5n + (n - 1) parts.
    assertThat(p.e2e().p50Nanos()).isEqualTo(37 * MS);
    assertThat(p.identityViolations()).isZero();
    assertThat(p.hops())
        .extracting(h -> h.index() + " " + h.inputTopic() + " " + h.group() + " " + h.outputTopic())
        .containsExactly(
            "1 orders enricher orders-enriched",
            "2 orders-enriched shipper shipments",
            "3 shipments billing null");
    assertThat(p.hops().get(0).e2e().p99Nanos()).isEqualTo(15 * MS);
    assertThat(p.hops().get(0).processing().p50Nanos()).isEqualTo(4 * MS);
    assertThat(p.hops().get(1).processing().p50Nanos()).isEqualTo(3 * MS);
    assertThat(p.hops().get(2).processing()).isNull();
    assertThat(p.hops().get(0).segments().get("catch-up").p50Nanos()).isEqualTo(4 * MS);
    assertThat(p.hops().get(0).segments().get("commit").quality()).containsEntry("exact", 1);
    // The tail is the first hop's fetch: 5 of 37 ms, the largest part.
    assertThat(p.tail().hop()).isEqualTo(1);
    assertThat(p.tail().segment()).isEqualTo("fetch");
    assertThat(p.tail().share()).isEqualTo(5.0 / 37);
    assertThat(p.tail().records()).isEqualTo(1);
    assertThat(report.graph().nodes())
        .extracting(n -> n.id())
        .containsExactly(
            "topic:orders",
            "group:enricher",
            "topic:orders-enriched",
            "group:shipper",
            "topic:shipments",
            "group:billing");
    assertThat(report.graph().edges())
        .contains(
            new Edge("topic:orders", "group:enricher", "reads"),
            new Edge("group:enricher", "topic:orders-enriched", "writes"),
            new Edge("topic:shipments", "group:billing", "reads"));
    // The intermediate groups end no pipeline: they wrote what continued the chain.
    assertThat(report.counts().incomplete()).isZero();
  }

  @Test
  void processingDominatesTheTailWhenTheApplicationIsSlow() {
    ChainFixture f = new ChainFixture();
    Hop first = f.record("orders", 1, "enricher", 0).instances(1, 2).add();
    f.output(first, "orders-enriched", 1, "billing", 500).instances(2, 3).linkedTo(first).add();

    Pipeline p = only(f.report());

    assertThat(p.tail().hop()).isEqualTo(1);
    assertThat(p.tail().segment()).isEqualTo(Pipelines.PROCESSING);
    assertThat(p.tail().part()).isNull();
  }

  @Test
  void fanOutGivesAPipelinePerLastGroupAndCountsAnInputOncePerHop() {
    ChainFixture f = new ChainFixture();
    Hop in = f.record("orders", 1, "splitter", 0).instances(1, 2).add();
    // Two outputs of one input to one topic read by one group, a third to another topic.
    f.output(in, "lines", 1, "stock", 1).instances(2, 3).linkedTo(in).add();
    f.output(in, "lines", 2, "stock", 2).instances(2, 3).linkedTo(in).add();
    Hop audit = f.output(in, "audit", 1, "auditor", 3).instances(2, 4).linkedTo(in).add();
    // The audit record is read by a second group too: one pipeline more.
    audit.alsoReadBy("archiver", 5).add();

    PipelinesReport report = f.report();

    assertThat(report.pipelines())
        .extracting(Pipeline::name)
        .containsExactly("orders->stock", "orders->archiver", "orders->auditor");
    Pipeline stock = named(report, "orders->stock");
    assertThat(stock.count()).isEqualTo(2);
    assertThat(stock.hops().get(0).count()).as("the input, once").isEqualTo(1);
    assertThat(stock.hops().get(1).count()).isEqualTo(2);
    assertThat(stock.hops().get(0).processing().p50Nanos()).isEqualTo(1 * MS);
    assertThat(stock.hops().get(0).processing().p99Nanos()).isEqualTo(2 * MS);
    assertThat(named(report, "orders->auditor").count()).isEqualTo(1);
    assertThat(report.counts().chains()).isEqualTo(4);
  }

  @Test
  void aBatchCountsItsOutputOnceWithTheChainOfItsEarliestInput() {
    ChainFixture f = new ChainFixture();
    Hop a = f.record("orders", 1, "batcher", 0).instances(1, 2).add();
    Hop b = f.record("orders", 2, "batcher", 10).instances(1, 2).add();
    Hop c = f.record("orders", 3, "batcher", 20).instances(1, 2).add();
    // The batch is sent 50 ms after c's poll; a waited longest.
    f.output(c, "totals", 1, "billing", 50).instances(2, 3).linkedTo(a, b, c).add();

    Pipeline p = only(f.report());

    assertThat(p.count()).as("the batch's output, once").isEqualTo(1);
    // a: 15 ms, then processing from a's poll (15) to the send (20 + 15 + 50 = 85): 70, then 15.
    assertThat(p.e2e().p50Nanos()).isEqualTo(100 * MS);
    assertThat(p.hops().get(0).count()).as("every input of the batch").isEqualTo(3);
    assertThat(p.hops().get(0).processing().p50Nanos()).isEqualTo(60 * MS);
    assertThat(p.hops().get(1).count()).isEqualTo(1);
  }

  @Test
  void kafkaStreamsRepartitionIsAnInternalHopAndChangelogIsNeverOne() {
    ChainFixture f = new ChainFixture();
    // Streams forwards the input's traceparent: its outputs name the upstream producer span.
    Hop in = f.record("orders", 1, "app", 0).instances(1, 2).add();
    Hop repartition =
        f.output(in, "app-by-customer-repartition", 1, "app", 1)
            .instances(2, 2)
            .forwardedFrom(in)
            .add();
    f.output(in, "app-store-changelog", 1, "restore", 1).instances(2, 9).linkedTo(in).add();
    f.output(repartition, "totals", 1, "billing", 2)
        .instances(2, 3)
        .forwardedFrom(repartition)
        .add();

    PipelinesReport report = f.report();
    Pipeline p = only(report);

    assertThat(p.name()).isEqualTo("orders->billing");
    assertThat(p.hops())
        .extracting(h -> h.outputTopic() + " " + h.internal())
        .containsExactly("app-by-customer-repartition true", "totals false", "null false");
    assertThat(report.graph().edges())
        .contains(new Edge("group:app", "topic:app-store-changelog", "changelog"))
        .noneMatch(e -> e.to().equals("group:restore"));
  }

  @Test
  void aChainWhoseProcessingRunsBackwardsBreaksTheIdentity() {
    ChainFixture f = new ChainFixture();
    Hop first = f.record("orders", 1, "enricher", 0).instances(1, 2).add();
    f.output(first, "orders-enriched", 1, "billing", -3).instances(2, 3).linkedTo(first).add();
    Hop other = f.record("orders", 2, "enricher", 0).instances(1, 2).add();
    // Produced on another agent than the one that polled: two clocks, no identity either.
    f.output(other, "orders-enriched", 2, "billing", 3).instances(7, 3).linkedTo(other).add();
    Hop fine = f.record("orders", 3, "enricher", 0).instances(1, 2).add();
    f.output(fine, "orders-enriched", 3, "billing", 3).instances(2, 3).linkedTo(fine).add();

    Pipeline p = only(f.report());

    assertThat(p.count()).isEqualTo(3);
    assertThat(p.identityViolations()).isEqualTo(2);
  }

  @Test
  void anInputReadByTwoGroupsOnOtherAgentsHasAnUnknownGroup() {
    ChainFixture f = new ChainFixture();
    Hop in = f.record("orders", 1, "g1", 0).instances(1, 2).add();
    in.alsoReadBy("g2", 3).add();
    // Forwarded by an application on agent 9, which read it in neither group's consumer.
    f.output(in, "out", 1, "billing", 1).instances(9, 4).forwardedFrom(in).add();

    PipelinesReport report = f.report();

    assertThat(report.counts().unknownGroups()).isEqualTo(1);
    assertThat(report.pipelines())
        .extracting(Pipeline::name)
        .containsExactlyInAnyOrder("orders->g1", "orders->g2");
  }

  @Test
  void theGroupOfAForwardedInputIsTheOneOnTheSameAgentElseTheOnlyOne() {
    ChainFixture f = new ChainFixture();
    Hop in = f.record("orders", 1, "g1", 0).instances(1, 2).add();
    in.alsoReadBy("g2", 3).add();
    f.output(in, "out", 1, "billing", 1).instances(3, 4).forwardedFrom(in).add();
    Hop single = f.record("payments", 1, "p1", 0).instances(1, 5).add();
    f.output(single, "receipts", 1, "mail", 1).instances(8, 6).forwardedFrom(single).add();

    PipelinesReport report = f.report();

    assertThat(report.pipelines())
        .extracting(Pipeline::name)
        .contains("orders->billing", "orders->g1", "payments->mail");
    assertThat(named(report, "orders->billing").hops().get(0).group()).isEqualTo("g2");
    assertThat(report.counts().unknownGroups()).isZero();
  }

  @Test
  void aChainWhoseOutputHasNotJoinedYetIsIncompleteNotAPipeline() {
    ChainFixture f = new ChainFixture();
    Hop first = f.record("orders", 1, "enricher", 0).instances(1, 2).add();
    f.output(first, "orders-enriched", 1, "billing", 1).instances(2, 3).linkedTo(first).add();
    // The enricher's output of this one has not been joined: the chain cannot end in enricher.
    f.record("orders", 2, "enricher", 0).instances(1, 2).add();

    PipelinesReport report = f.report();

    assertThat(only(report).count()).isEqualTo(1);
    assertThat(report.counts().incomplete()).isEqualTo(1);
  }

  @Test
  void aLoopOfLinksIsCutNotFollowed() {
    ChainFixture f = new ChainFixture();
    Hop a = f.record("orders", 1, "g", 0).instances(1, 2).add();
    Hop b = f.record("loop", 1, "g2", 20).instances(2, 3);
    Hop c = f.output(b, "loop2", 1, "g3", 1).instances(3, 4);
    // b names a and c as its inputs, c names b: a -> b -> c -> b -> ...
    b.linkedTo(a, c);
    c.linkedTo(b);
    b.add();
    c.add();

    PipelinesReport report = f.report();

    assertThat(report.counts().cut()).isEqualTo(1);
    assertThat(report.pipelines()).isEmpty();
  }

  @Test
  void namesComeFromPipelineNamesAndAreUnique() {
    ChainFixture f = new ChainFixture();
    Hop a = f.record("orders", 1, "x", 0).instances(1, 2).add();
    f.output(a, "xs", 1, "billing", 1).instances(2, 3).linkedTo(a).add();
    Hop b = f.record("orders", 2, "y", 0).instances(1, 4).add();
    f.output(b, "ys", 1, "billing", 1).instances(4, 3).linkedTo(b).add();
    Hop b2 = f.record("orders", 3, "y", 0).instances(1, 4).add();
    f.output(b2, "ys", 2, "billing", 1).instances(4, 3).linkedTo(b2).add();

    assertThat(f.report().pipelines())
        .extracting(Pipeline::name)
        .containsExactly("orders->billing", "orders->x->billing");
    assertThat(f.report(PipelineNames.parse("checkout = orders/billing"), 50).pipelines())
        .extracting(Pipeline::name)
        .containsExactly("checkout", "orders->x->billing");
    PipelinesReport one = f.report(PipelineNames.NONE, 1);
    assertThat(one.pipelines()).hasSize(1);
    assertThat(one.counts().notShown()).isEqualTo(1);
  }

  @Test
  void eachHopGivesTheMeansOfItsPartsOverTheChainsOfThePipelinesP99() {
    ChainFixture f = new ChainFixture();
    // 100 chains; the p99 is the 99th: the two slowest (commit 40 and 50 ms at hop 2) are the tail.
    for (int i = 0; i < 100; i++) {
      long commitMs = i == 98 ? 40 : i == 99 ? 50 : 3;
      Hop in =
          f.record("orders", i, "enricher", i).instances(1, 2).segments(1, 2, 3, 4, i % 2).add();
      f.output(in, "orders-enriched", i, "billing", 6 + i % 2)
          .instances(2, 3)
          .segments(1, 1, commitMs, 1, 1)
          .linkedTo(in)
          .add();
    }

    Pipeline p = only(f.report());

    assertThat(p.tail().records()).isEqualTo(2);
    PipelinesReport.TailMeans first = p.hops().get(0).p99Tail();
    PipelinesReport.TailMeans last = p.hops().get(1).p99Tail();
    assertThat(first.chains()).isEqualTo(2);
    // Chains 98 and 99: fetch 0 and 1 ms, processing 6 and 7 ms.
    assertThat(first.meanNanos())
        .containsExactly(
            entry("produce", 1.0 * MS),
            entry("publish", 2.0 * MS),
            entry("commit", 3.0 * MS),
            entry("catch-up", 4.0 * MS),
            entry("fetch", 0.5 * MS),
            entry("processing", 6.5 * MS));
    assertThat(last.meanNanos()).doesNotContainKey("processing").containsEntry("commit", 45.0 * MS);
    // The parts of every hop add up to the tail chains' mean end to end.
    double sum =
        first.meanNanos().values().stream().mapToDouble(Double::doubleValue).sum()
            + last.meanNanos().values().stream().mapToDouble(Double::doubleValue).sum();
    assertThat(sum).isEqualTo(p.tail().meanE2eNanos());
  }

  @Test
  void aHopWithoutAppendGivesPublishAndCommitTogetherInItsTailMeans() {
    ChainFixture f = new ChainFixture();
    Hop in = f.record("orders", 1, "enricher", 0).instances(1, 2).add();
    f.output(in, "orders-enriched", 1, "billing", 2)
        .instances(2, 3)
        .segments(1, 6, 7, 1, 1)
        .withoutAppend()
        .linkedTo(in)
        .add();

    Pipeline p = only(f.report());
    java.util.Map<String, Double> last = p.hops().get(1).p99Tail().meanNanos();

    assertThat(last)
        .containsEntry("publish", null)
        .containsEntry("commit", null)
        .containsEntry("publish+commit", 13.0 * MS);
    assertThat(p.hops().get(0).p99Tail().meanNanos()).doesNotContainKey("publish+commit");
    assertThat(p.tail().segment()).isEqualTo("publish+commit");
    double sum =
        p.hops().stream()
            .flatMap(h -> h.p99Tail().meanNanos().values().stream())
            .filter(v -> v != null)
            .mapToDouble(Double::doubleValue)
            .sum();
    assertThat(sum).isEqualTo(15 * MS + 2 * MS + 16 * MS);
  }

  @Test
  void theTailNamesCommitsPartWhenAChainOfItWaitedForItsTransaction() {
    // Commit 40 ms at hop 2: 30 of them the transaction's wait, then 10 of 40.
    for (long waitMs : new long[] {30, 10, 0}) {
      ChainFixture f = new ChainFixture();
      Hop in = f.record("orders", 1, "enricher", 0).instances(1, 2).add();
      f.output(in, "orders-enriched", 1, "billing", 1)
          .instances(2, 3)
          .segments(1, 1, 40, 1, 1)
          .transactionWait(waitMs)
          .linkedTo(in)
          .add();

      PipelinesReport.Tail tail = only(f.report()).tail();

      assertThat(tail.hop()).isEqualTo(2);
      assertThat(tail.segment()).as("the metrics' segment, whatever its part").isEqualTo("commit");
      assertThat(tail.share()).isEqualTo(40.0 / (15 + 1 + 44));
      assertThat(tail.part())
          .as("wait %d ms", waitMs)
          .isEqualTo(waitMs == 30 ? "transaction" : waitMs == 10 ? "replication" : null);
    }
  }

  @Test
  void aHopsCommitHasItsPartsOnlyWhenARecordWaitedForItsTransaction() {
    for (long waitMs : new long[] {30, 0}) {
      ChainFixture f = new ChainFixture();
      Hop in = f.record("orders", 1, "enricher", 0).instances(1, 2).add();
      f.output(in, "orders-enriched", 1, "billing", 1)
          .instances(2, 3)
          .segments(1, 1, 40, 1, 1)
          .transactionWait(waitMs)
          .linkedTo(in)
          .add();

      PipelinesReport.Pipeline p = only(f.report());

      assertThat(p.hops().get(0).commitParts()).as("hop 1, no transaction").isNull();
      PipelinesReport.CommitParts parts = p.hops().get(1).commitParts();
      if (waitMs == 0) {
        assertThat(parts).as("no record waited: no parts, as /api/breakdown").isNull();
      } else {
        assertThat(parts.transaction().p99Nanos()).isEqualTo(30 * MS);
        assertThat(parts.replication().p99Nanos()).isEqualTo(10 * MS);
      }
    }
  }

  @Test
  void longestPipelinesComeFirstAndOneStartingAtAnotherOnesOutputIsAFragment() {
    ChainFixture f = new ChainFixture();
    Hop in = f.record("orders", 1, "enricher", 0).instances(1, 2).add();
    f.output(in, "orders-enriched", 1, "billing", 1).instances(2, 3).linkedTo(in).add();
    // Three records of the middle topic sampled by the enricher's producer on their own, and two
    // of a plain topic: one-hop pipelines with more chains than the two-hop one.
    for (int i = 2; i < 5; i++) {
      f.record("orders-enriched", i, "billing", i).instances(2, 3).add();
    }
    for (int i = 1; i < 3; i++) {
      f.record("payments", i, "ledger", i).instances(4, 5).add();
    }
    // An application writing back to its own input topic: no other pipeline's output.
    Hop retry = f.record("retries", 1, "retrier", 0).instances(6, 7).add();
    f.output(retry, "retries", 2, "dead-letters", 1).instances(7, 8).linkedTo(retry).add();

    PipelinesReport report = f.report();

    assertThat(report.pipelines())
        .extracting(q -> q.name() + " " + q.hopCount() + " " + q.count() + " " + q.fragment())
        .containsExactly(
            "orders->billing 2 1 false",
            "retries->dead-letters 2 1 false",
            "payments->ledger 1 2 false",
            "orders-enriched->billing 1 3 true");
    // The cap keeps the longest.
    assertThat(f.report(PipelineNames.NONE, 1).pipelines())
        .extracting(Pipeline::name)
        .containsExactly("orders->billing");
  }

  @Test
  void badPipelineNamesAreRefusedWithTheEntry() {
    assertThat(PipelineNames.parse("").name("a", "b")).isEqualTo("a->b");
    for (String bad : List.of("x", "x=a", "=a/b", "x=/b", "x=a/", "x=a/b,y=a/b")) {
      assertThatThrownBy(() -> PipelineNames.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("pipeline.names");
    }
  }
}
