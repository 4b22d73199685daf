package dev.klat.collector.pipeline;

import dev.klat.collector.aggregate.HopRecord;
import dev.klat.collector.correlate.join.RecordKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Follows a window's links into complete chains (section 9 of the latency model). A chain starts at
 * a record that is no output (its producer span links it to nothing), with each group that read it,
 * and follows every output that group produced from it (fan-out: one chain per output) to each
 * group that read that output, until a group that produced nothing from it. It is complete only if
 * that last group writes nothing linked from that topic in the window (a group that does write
 * would continue the chain once its output joins) and every output on the way was read by a group
 * in the window. Records of a changelog topic ({@code ...-changelog}) are state, never a hop.
 * Bounded: at most {@link #MAX_HOPS} hops per chain, {@link #MAX_CHAINS} chains and {@link
 * #MAX_STEPS} steps per window, the rest counted; a record met again on its own chain (a loop) ends
 * that chain, counted.
 */
final class ChainAssembly {
  /** The most hops a chain is followed for; longer ones are counted as cut. */
  static final int MAX_HOPS = 32;

  /** The most chains one window gives; the rest are counted as cut. */
  static final int MAX_CHAINS = 200_000;

  /**
   * The most steps (hops followed) one window's assembly takes, complete or not: fan-out that ends
   * in incomplete chains would otherwise cost time without adding a chain.
   */
  static final int MAX_STEPS = 2_000_000;

  private final Links links;
  // (topic, group) pairs that produced a linked output (not a changelog record) in the window.
  private final Set<List<String>> writers = new HashSet<>();
  private final List<Chain> chains = new ArrayList<>();
  private int incomplete;
  private int cut;
  private int steps;

  private ChainAssembly(Links links) {
    this.links = links;
    for (Map.Entry<Links.Input, List<RecordKey>> e : links.allOutputs().entrySet()) {
      if (e.getValue().stream().anyMatch(o -> !isChangelog(o.topic()))) {
        writers.add(List.of(e.getKey().key().topic(), e.getKey().group()));
      }
    }
  }

  /** The window's complete chains. */
  static ChainAssembly assemble(Links links) {
    ChainAssembly a = new ChainAssembly(links);
    for (Map.Entry<RecordKey, List<HopRecord>> e : links.records().entrySet()) {
      if (!links.inputsOf(e.getKey()).isEmpty() || isChangelog(e.getKey().topic())) {
        continue;
      }
      for (HopRecord first : e.getValue()) {
        List<HopRecord> path = new ArrayList<>();
        path.add(first);
        a.walk(path);
      }
    }
    return a;
  }

  List<Chain> chains() {
    return chains;
  }

  /** Chains that could not be followed to their end within the window. */
  int incomplete() {
    return incomplete;
  }

  /** Chains cut by {@link #MAX_HOPS}, {@link #MAX_CHAINS}, {@link #MAX_STEPS} or a loop. */
  int cut() {
    return cut;
  }

  /** Whether a topic is a Kafka Streams changelog: state, never a hop. */
  static boolean isChangelog(String topic) {
    return topic.endsWith("-changelog");
  }

  /** Whether a hop's output topic is a Kafka Streams repartition topic of its own application. */
  static boolean isInternal(String group, String outputTopic) {
    return outputTopic != null
        && outputTopic.startsWith(group + "-")
        && outputTopic.endsWith("-repartition");
  }

  private void walk(List<HopRecord> path) {
    if (chains.size() >= MAX_CHAINS || ++steps > MAX_STEPS) {
      cut++;
      return;
    }
    HopRecord last = path.get(path.size() - 1);
    List<RecordKey> outs = new ArrayList<>();
    for (RecordKey o : links.outputsOf(last.key(), last.group())) {
      if (!isChangelog(o.topic())) {
        outs.add(o);
      }
    }
    if (outs.isEmpty()) {
      if (writers.contains(List.of(last.key().topic(), last.group()))) {
        incomplete++;
      } else {
        chains.add(Chain.of(path));
      }
      return;
    }
    if (path.size() >= MAX_HOPS) {
      cut++;
      return;
    }
    for (RecordKey o : outs) {
      if (path.stream().anyMatch(h -> h.key().equals(o))) {
        cut++;
        continue;
      }
      List<HopRecord> readers = links.records().getOrDefault(o, List.of());
      if (readers.isEmpty()) {
        incomplete++;
        continue;
      }
      for (HopRecord next : readers) {
        path.add(next);
        walk(path);
        path.remove(path.size() - 1);
      }
    }
  }
}
