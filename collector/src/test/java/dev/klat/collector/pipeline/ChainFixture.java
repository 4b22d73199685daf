package dev.klat.collector.pipeline;

import dev.klat.collector.aggregate.HopRecord;
import dev.klat.collector.aggregate.RecentBreakdowns;
import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.join.ChainContext;
import dev.klat.collector.correlate.join.ConsumerEvidence;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.join.RecordLink;
import dev.klat.collector.correlate.join.RecordLinks;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.EstimationMethod;
import dev.klat.model.Instants;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Joined breakdowns of linked records, built as the join would make them and kept in a real {@link
 * RecentBreakdowns}: each record's five segments are given in milliseconds, its {@code S} on its
 * producer's clock, its consumer's clock {@code offsetMs} ahead of the producer's.
 */
public final class ChainFixture {
  public static final long MS = 1_000_000L;
  public static final long T0 = 1_800_000_000_000_000_000L;

  public final RecentBreakdowns ring = new RecentBreakdowns(10_000);
  private long nowNanos = 1;
  private long nextSpanId = 0x100;

  /** One record's breakdown for one group. */
  public final class Hop {
    String topic;
    long offset;
    String group;
    long traceLow = 1;
    long producerSpanId;
    long consumerSpanId;
    long producerInstance;
    long consumerInstance;
    long parentSpanId;
    RecordLinks links;
    long sendMs;
    long[] segmentsMs = {1, 2, 3, 4, 5};
    long consumerClockAheadMs;

    /** The record's {@code S + e2e}, {@code P} on the consumer's own clock, in ms from T0. */
    long pollMsOnConsumerClock() {
      long e2e = 0;
      for (long s : segmentsMs) {
        e2e += s;
      }
      return sendMs + e2e + consumerClockAheadMs;
    }

    public Hop segments(long... ms) {
      segmentsMs = ms;
      return this;
    }

    public Hop trace(long low) {
      traceLow = low;
      return this;
    }

    public Hop instances(long producer, long consumer) {
      producerInstance = producer;
      consumerInstance = consumer;
      return this;
    }

    public Hop clockAhead(long ms) {
      consumerClockAheadMs = ms;
      return this;
    }

    /** Linked (klat.link.*) to the inputs, the first continuing its trace. */
    public Hop linkedTo(Hop... inputs) {
      List<RecordLink> l = new ArrayList<>();
      for (Hop in : inputs) {
        l.add(
            new RecordLink(
                new RecordKey(in.topic, 0, in.offset),
                in.group,
                0,
                in.traceLow,
                in.consumerSpanId));
      }
      links = new RecordLinks(l, l.size(), 0);
      parentSpanId = inputs[0].consumerSpanId;
      traceLow = inputs[0].traceLow;
      return this;
    }

    /** Linked through the parent span only: the upstream producer span (traceparent forwarded). */
    public Hop forwardedFrom(Hop upstream) {
      parentSpanId = upstream.producerSpanId;
      traceLow = upstream.traceLow;
      return this;
    }

    /** The same record read by another group. */
    public Hop alsoReadBy(String otherGroup, long consumerInstance) {
      Hop h = new Hop();
      h.topic = topic;
      h.offset = offset;
      h.group = otherGroup;
      h.traceLow = traceLow;
      h.producerSpanId = producerSpanId;
      h.consumerSpanId = nextSpanId++;
      h.producerInstance = producerInstance;
      h.consumerInstance = consumerInstance;
      h.parentSpanId = parentSpanId;
      h.links = links;
      h.sendMs = sendMs;
      h.segmentsMs = segmentsMs;
      return h;
    }

    /** Joins it: its breakdown goes to the ring. */
    public Hop add() {
      long s = T0 + sendMs * MS;
      long d = s + segmentsMs[0] * MS;
      long l = d + segmentsMs[1] * MS;
      long h = l + segmentsMs[2] * MS;
      long f = h + segmentsMs[3] * MS;
      long r = f + segmentsMs[4] * MS;
      Instants i =
          Instants.builder()
              .send(s)
              .drain(d)
              .append(l, EstimationMethod.BROKER_PROBE)
              .commit(h, EstimationMethod.BROKER_PROBE)
              .fetchRequest(f)
              .fetchResponse(r)
              .poll(r)
              .build();
      long offsetNanos = consumerClockAheadMs * MS;
      ring.add(
          new JoinedBreakdown(
              new RecordKey(topic, 0, offset),
              group,
              0,
              traceLow,
              producerSpanId,
              consumerSpanId,
              Breakdown.compute(i),
              new ClockOffset("p", "c", offsetNanos, 0, offsetNanos, offsetNanos),
              null,
              Set.of(),
              false,
              -1,
              -1,
              -1,
              -1,
              ProducerEvidence.UNKNOWN,
              ConsumerEvidence.UNKNOWN,
              Capture.SAMPLED,
              new ChainContext(
                  producerInstance, consumerInstance, parentSpanId, links, s, r + offsetNanos)),
          nowNanos++);
      return this;
    }
  }

  /**
   * A record {@code topic@offset} sent at {@code sendMs} (its producer's clock) and read by {@code
   * group}; not added yet.
   */
  public Hop record(String topic, long offset, String group, long sendMs) {
    Hop h = new Hop();
    h.topic = topic;
    h.offset = offset;
    h.group = group;
    h.sendMs = sendMs;
    h.producerSpanId = nextSpanId++;
    h.consumerSpanId = nextSpanId++;
    return h;
  }

  /** The output {@code upstream}'s application produced, {@code processingMs} after its poll. */
  public Hop output(Hop upstream, String topic, long offset, String group, long processingMs) {
    Hop h = record(topic, offset, group, upstream.pollMsOnConsumerClock() + processingMs);
    h.producerInstance = upstream.consumerInstance;
    return h;
  }

  public List<HopRecord> window() {
    return ring.hopRecords(Long.MAX_VALUE / 4, nowNanos);
  }

  public PipelinesReport report(PipelineNames names, int maxPipelines) {
    return Pipelines.report(window(), names, maxPipelines, 300_000_000_000L);
  }

  public PipelinesReport report() {
    return report(PipelineNames.NONE, 50);
  }
}
