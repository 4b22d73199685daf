package dev.klat.collector.scale.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.receive.OtlpIngest;
import dev.klat.collector.receive.TailOtlpSpans;
import dev.klat.collector.scale.ingest.TraceSplitter;
import dev.klat.model.Capture;
import dev.klat.model.Segment;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

/**
 * A scaled-out collector with tail capture (section 8 of the latency model): the ingest routes the
 * producer's and the consumer's tail spans of one record, sent by two agents in two requests, to
 * one span partition by their derived trace id, and the join member that reads it joins them, or
 * makes the one-sided breakdown of a lone one, and holds it until its commit like any other.
 */
class TailScaleOutTest {
  private static final long MINUTE = 60_000_000_000L;
  private static final long S = 1_800_000_000_123_000_000L;
  private static final int SPAN_PARTITIONS = 12;

  private long nowNanos = 0;
  private final List<JoinedBreakdown> out = new ArrayList<>();
  private final List<Long> sources = new ArrayList<>();
  private final Correlator correlator =
      Correlator.sourced(
          new Correlator.Settings(MINUTE, 100, MINUTE, 100),
          () -> nowNanos,
          BrokerInstants.logAppendTime(),
          (b, source) -> {
            out.add(b);
            sources.add(source);
          });
  private final OtlpIngest ingest =
      new OtlpIngest(correlator, new AgentMetrics(100, Long.MAX_VALUE));

  /** The pieces of one agent's request, as the ingest role splits and keys them. */
  private static List<TraceSplitter.Piece> split(long instanceId, Span.Builder... spans)
      throws Exception {
    Span[] built = new Span[spans.length];
    for (int i = 0; i < spans.length; i++) {
      built[i] = spans[i].build();
    }
    byte[] body = TailOtlpSpans.request(instanceId, built);
    return TraceSplitter.split(body, body.length);
  }

  // The partition Kafka's producer picks for a keyed record, as the ingest sends them.
  private static int partitionOf(TraceSplitter.Piece piece) {
    return BuiltInPartitioner.partitionForKey(piece.key(), SPAN_PARTITIONS);
  }

  @Test
  void bothHalvesOfATailRecordLandOnOnePartitionAndJoinThere() throws Exception {
    // Each agent's request holds other records' spans too.
    List<TraceSplitter.Piece> fromProducer =
        split(
            0x11,
            TailOtlpSpans.producer("orders", 3, 41, S),
            TailOtlpSpans.producer("orders", 3, 42, S));
    List<TraceSplitter.Piece> fromConsumer =
        split(
            0x22,
            TailOtlpSpans.consumer("orders", 3, 42, "billing", S),
            TailOtlpSpans.consumer("orders", 7, 42, "billing", S));
    assertThat(fromProducer).hasSize(2);
    assertThat(fromConsumer).hasSize(2);
    TraceSplitter.Piece producerHalf = fromProducer.get(1);
    TraceSplitter.Piece consumerHalf = fromConsumer.get(0);
    String expectedKey =
        HexFormat.of().toHexDigits(TailOtlpSpans.derivedHigh("orders", 3, 42))
            + HexFormat.of().toHexDigits(TailOtlpSpans.derivedLow("orders", 3, 42));
    assertThat(new String(producerHalf.key(), StandardCharsets.US_ASCII)).isEqualTo(expectedKey);
    assertThat(consumerHalf.key()).isEqualTo(producerHalf.key());
    assertThat(partitionOf(consumerHalf)).isEqualTo(partitionOf(producerHalf));
    // Other records' ids differ, so they spread: the key is the record, not the topic.
    assertThat(fromProducer.get(0).key()).isNotEqualTo(producerHalf.key());
    assertThat(fromConsumer.get(1).key()).isNotEqualTo(consumerHalf.key());

    // The member reading that partition decodes both pieces as they are, capture included.
    int partition = partitionOf(producerHalf);
    assertThat(ingest.tracesFrom(producerHalf.body(), SpanSource.of(partition, 7))).isNull();
    assertThat(ingest.tracesFrom(consumerHalf.body(), SpanSource.of(partition, 9))).isNull();

    assertThat(out).hasSize(1);
    JoinedBreakdown joined = out.get(0);
    assertThat(joined.capture()).isEqualTo(Capture.TAIL);
    assertThat(joined.key().offset()).isEqualTo(42);
    assertThat(joined.group()).isEqualTo("billing");
    assertThat(joined.breakdown().isKnown(Segment.PRODUCE)).isTrue();
    assertThat(joined.breakdown().isEndToEndKnown()).isTrue();
    assertThat(SpanSource.offset(sources.get(0))).as("the span that completed it").isEqualTo(9);
    assertThat(correlator.stats().tail().joined()).isEqualTo(1);
  }

  @Test
  void aLoneTailSpansOneSidedBreakdownIsHeldUntilTheCommitThatMarksItsSpan() throws Exception {
    List<TraceSplitter.Piece> fromConsumer =
        split(0x22, TailOtlpSpans.consumer("orders", 3, 42, "billing", S));
    int partition = partitionOf(fromConsumer.get(0));
    assertThat(ingest.tracesFrom(fromConsumer.get(0).body(), SpanSource.of(partition, 5))).isNull();
    nowNanos += MINUTE;
    correlator.expire();

    assertThat(out).hasSize(1);
    JoinedBreakdown consumerOnly = out.get(0);
    assertThat(consumerOnly.capture()).isEqualTo(Capture.TAIL);
    assertThat(consumerOnly.producerSpanId()).isZero();
    assertThat(consumerOnly.breakdown().produceAndPublishNanos()).isEqualTo(-1);
    assertThat(consumerOnly.breakdown().producePublishAndCommitNanos()).isPositive();
    long source = sources.get(0);
    assertThat(SpanSource.partition(source)).isEqualTo(partition);
    assertThat(SpanSource.offset(source)).isEqualTo(5);

    // The member holds it as it holds a pair's breakdown, until a commit past its span.
    PartitionProgress progress = new PartitionProgress(-1);
    progress.read(5, 0);
    progress.hold(consumerOnly, SpanSource.offset(source));
    assertThat(progress.release(5)).isEmpty();
    assertThat(progress.release(6)).containsExactly(consumerOnly);
    assertThat(correlator.stats().tail().consumerOnly()).isEqualTo(1);
  }
}
