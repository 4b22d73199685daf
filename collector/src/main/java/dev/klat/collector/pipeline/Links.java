package dev.klat.collector.pipeline;

import dev.klat.collector.aggregate.HopRecord;
import dev.klat.collector.correlate.join.ChainContext;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.collector.correlate.join.RecordLink;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The links between a window's records (the collector contract of section 9 of the latency model):
 * per output record, the inputs it was produced from, each an input record and the group that read
 * it. An output's producer span names them (1) in its {@code klat.link.*} attributes and span
 * links, or else (2) through its parent span: the span of a producer whose record is in the window,
 * in the same trace (an application that forwards {@code traceparent}, as Kafka Streams does), or a
 * consumer span in the same trace. A link without a group takes the group of the consumer span it
 * names, else the group of the consumer span of that record on the output producer's agent
 * instance, else the only group that read it, else {@link #UNKNOWN_GROUP}.
 */
final class Links {
  /** The group of an input whose reader is not known. */
  static final String UNKNOWN_GROUP = "?";

  /** One input of an output record. */
  record Input(RecordKey key, String group) {}

  private record SpanRef(long traceIdHigh, long traceIdLow, long spanId) {}

  // Per record, its breakdowns (one per group that read it), in window order.
  private final Map<RecordKey, List<HopRecord>> byKey = new LinkedHashMap<>();
  private final Map<SpanRef, RecordKey> producerSpans = new HashMap<>();
  private final Map<SpanRef, HopRecord> consumerSpans = new HashMap<>();
  private final Map<RecordKey, List<Input>> inputs = new HashMap<>();
  private final Map<Input, List<RecordKey>> outputs = new HashMap<>();
  private int unknownGroups;

  Links(List<HopRecord> records) {
    for (HopRecord r : records) {
      List<HopRecord> same = byKey.computeIfAbsent(r.key(), k -> new ArrayList<>(1));
      if (same.stream().noneMatch(o -> o.group().equals(r.group()))) {
        same.add(r);
      }
      if (r.producerSpanId() != 0) {
        producerSpans.putIfAbsent(
            new SpanRef(r.traceIdHigh(), r.traceIdLow(), r.producerSpanId()), r.key());
      }
      if (r.consumerSpanId() != 0) {
        consumerSpans.putIfAbsent(
            new SpanRef(r.traceIdHigh(), r.traceIdLow(), r.consumerSpanId()), r);
      }
    }
    for (List<HopRecord> same : byKey.values()) {
      HopRecord output = same.get(0);
      List<Input> in = resolve(output);
      if (!in.isEmpty()) {
        inputs.put(output.key(), in);
        for (Input i : in) {
          List<RecordKey> outs = outputs.computeIfAbsent(i, k -> new ArrayList<>(1));
          if (!outs.contains(output.key())) {
            outs.add(output.key());
          }
        }
      }
    }
  }

  /** Every record of the window with its breakdowns, one per group, in window order. */
  Map<RecordKey, List<HopRecord>> records() {
    return byKey;
  }

  /** The inputs of an output record; empty for a record no span links to anything. */
  List<Input> inputsOf(RecordKey output) {
    return inputs.getOrDefault(output, List.of());
  }

  /** The records produced from one input, as read by one group. */
  List<RecordKey> outputsOf(RecordKey input, String group) {
    return outputs.getOrDefault(new Input(input, group), List.of());
  }

  /** Every input that produced at least one output, with its outputs. */
  Map<Input, List<RecordKey>> allOutputs() {
    return outputs;
  }

  /** Inputs whose group could not be told ({@link #UNKNOWN_GROUP}). */
  int unknownGroups() {
    return unknownGroups;
  }

  private List<Input> resolve(HopRecord output) {
    ChainContext c = output.chain();
    List<Input> out = new ArrayList<>(1);
    if (c.links() != null) {
      for (RecordLink link : c.links().links()) {
        if (link.key().equals(output.key())) {
          continue; // a record cannot be its own input
        }
        String group = link.group();
        if (group == null) {
          HopRecord consumer =
              consumerSpans.get(new SpanRef(link.traceIdHigh(), link.traceIdLow(), link.spanId()));
          group =
              consumer != null && consumer.key().equals(link.key())
                  ? consumer.group()
                  : groupOf(link.key(), c.producerInstanceId());
        }
        add(out, new Input(link.key(), group));
      }
      return out;
    }
    if (c.producerParentSpanId() == 0) {
      return out;
    }
    SpanRef parent =
        new SpanRef(output.traceIdHigh(), output.traceIdLow(), c.producerParentSpanId());
    HopRecord consumer = consumerSpans.get(parent);
    if (consumer != null && !consumer.key().equals(output.key())) {
      add(out, new Input(consumer.key(), consumer.group()));
      return out;
    }
    RecordKey upstream = producerSpans.get(parent);
    if (upstream != null && !upstream.equals(output.key())) {
      add(out, new Input(upstream, groupOf(upstream, c.producerInstanceId())));
    }
    return out;
  }

  private void add(List<Input> out, Input input) {
    if (!out.contains(input)) {
      out.add(input);
      if (input.group().equals(UNKNOWN_GROUP)) {
        unknownGroups++;
      }
    }
  }

  // The group of the input's consumer span on the output producer's agent, else the only one.
  private String groupOf(RecordKey input, long producerInstanceId) {
    List<HopRecord> readers = byKey.getOrDefault(input, List.of());
    if (producerInstanceId != 0) {
      for (HopRecord r : readers) {
        if (r.chain().consumerInstanceId() == producerInstanceId) {
          return r.group();
        }
      }
    }
    return readers.size() == 1 ? readers.get(0).group() : UNKNOWN_GROUP;
  }
}
