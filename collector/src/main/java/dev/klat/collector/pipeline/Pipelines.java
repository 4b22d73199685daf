package dev.klat.collector.pipeline;

import dev.klat.collector.aggregate.HopRecord;
import dev.klat.collector.correlate.join.RecordKey;
import dev.klat.model.Quality;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A window's pipelines (section 9 of the latency model), assembled on query from the recent ring's
 * breakdowns: the chains grouped by their path of (topic, group) pairs, named by first topic and
 * last group unless {@code pipeline.names} names them (a second path with the same first topic and
 * last group is named by its groups, {@code orders->a->b->billing}).
 *
 * <p>How chains are counted. A pipeline's {@code count} and end to end are over its final records,
 * each once: a final record that several chains reach (a batch: an output linked to several inputs
 * continues each input's chain) keeps its chain with the earliest first {@code S}, the chain of its
 * oldest input, so that its end to end is the longest wait it stands for. A hop's figures are over
 * its distinct records: an input with several outputs (fan-out) is counted once per hop, and a
 * batch's every input is in its hop. Processing is per input and output pair. Fan-out to several
 * groups gives several pipelines.
 *
 * <p>Order and fragments. Pipelines are listed most hops first, then most chains (a fragment after
 * the others of its hop count). A pipeline whose first topic is an output topic of another pipeline
 * of the window is a fragment: its first records were produced there without a linked input (their
 * producer sampled them on its own), so its chains are the tail end of the other one's path.
 */
public final class Pipelines {
  /** The segment the tail names for the time in an application between hops. */
  public static final String PROCESSING = "processing";

  private Pipelines() {}

  /** The chains of one path. */
  static final class Path {
    final List<List<String>> pairs; // (topic, group) per hop
    final List<Chain> chains = new ArrayList<>();
    // Per final record and last group, the chain kept for it (earliest first S).
    final Map<List<Object>, Chain> finals = new LinkedHashMap<>();
    String name;
    boolean fragment;

    Path(List<List<String>> pairs) {
      this.pairs = pairs;
    }

    String firstTopic() {
      return pairs.get(0).get(0);
    }

    String lastGroup() {
      return pairs.get(pairs.size() - 1).get(1);
    }

    void add(Chain chain) {
      chains.add(chain);
      List<Object> end = List.of(chain.last().key(), chain.last().group());
      Chain kept = finals.get(end);
      if (kept == null || chain.firstSendNanos() < kept.firstSendNanos()) {
        finals.put(end, chain);
      }
    }
  }

  /**
   * The window's paths, named, most hops first, then fragments last, then most final records; with
   * the assembly's counts.
   */
  record Assembled(List<Path> paths, ChainAssembly assembly, Links links) {}

  static Assembled assemble(List<HopRecord> records, PipelineNames names) {
    Links links = new Links(records);
    ChainAssembly assembly = ChainAssembly.assemble(links);
    Map<List<List<String>>, Path> byPairs = new LinkedHashMap<>();
    for (Chain chain : assembly.chains()) {
      List<List<String>> pairs = new ArrayList<>(chain.hops().size());
      for (HopRecord h : chain.hops()) {
        pairs.add(List.of(h.key().topic(), h.group()));
      }
      byPairs.computeIfAbsent(List.copyOf(pairs), Path::new).add(chain);
    }
    List<Path> paths = new ArrayList<>(byPairs.values());
    paths.sort(
        Comparator.comparingInt((Path p) -> -p.finals.size())
            .thenComparing(p -> p.pairs.toString()));
    Set<String> used = new HashSet<>();
    for (Path p : paths) {
      String name = names.name(p.firstTopic(), p.lastGroup());
      if (!used.add(name)) {
        StringBuilder b = new StringBuilder(p.firstTopic());
        for (List<String> pair : p.pairs) {
          b.append("->").append(pair.get(1));
        }
        name = b.toString();
        for (int i = 2; !used.add(name); i++) {
          name = b + "#" + i;
        }
      }
      p.name = name;
    }
    // Names are given by chains (the contract: of two paths with one name, the one with fewer
    // chains is named by its groups); the listing puts the longest paths first.
    Map<String, Set<Path>> writtenBy = new HashMap<>();
    for (Path p : paths) {
      for (int k = 1; k < p.pairs.size(); k++) {
        writtenBy.computeIfAbsent(p.pairs.get(k).get(0), t -> new HashSet<>()).add(p);
      }
    }
    for (Path p : paths) {
      // Another path's output: an application writing back to its own input topic is no fragment.
      Set<Path> writers = writtenBy.getOrDefault(p.firstTopic(), Set.of());
      p.fragment = writers.size() > (writers.contains(p) ? 1 : 0);
    }
    paths.sort(
        Comparator.comparingInt((Path p) -> -p.pairs.size())
            .thenComparing(p -> p.fragment)
            .thenComparingInt(p -> -p.finals.size())
            .thenComparing(p -> p.pairs.toString()));
    return new Assembled(paths, assembly, links);
  }

  /**
   * The answer of {@code /api/pipelines} over {@code records}, the window's hop records.
   *
   * @param maxPipelines the most pipelines listed; the rest are counted
   */
  public static PipelinesReport report(
      List<HopRecord> records, PipelineNames names, int maxPipelines, long windowNanos) {
    Assembled a = assemble(records, names);
    List<PipelinesReport.Pipeline> out = new ArrayList<>();
    GraphBuilder graph = new GraphBuilder();
    for (Path p : a.paths()) {
      if (out.size() == maxPipelines) {
        break;
      }
      out.add(pipeline(p));
      graph.add(p);
    }
    graph.changelogs(a.links());
    return new PipelinesReport(
        windowNanos,
        out,
        graph.build(),
        new PipelinesReport.Counts(
            a.assembly().chains().size(),
            a.assembly().incomplete(),
            a.assembly().cut(),
            a.links().unknownGroups(),
            a.paths().size() - out.size()));
  }

  /** The pipeline with that name in the window, or null. */
  public static PipelinesReport.Pipeline find(
      List<HopRecord> records, PipelineNames names, String name) {
    for (Path p : assemble(records, names).paths()) {
      if (p.name.equals(name)) {
        return pipeline(p);
      }
    }
    return null;
  }

  static PipelinesReport.Pipeline pipeline(Path p) {
    List<Chain> finals = new ArrayList<>(p.finals.values());
    long[] e2e = new long[finals.size()];
    int violations = 0;
    for (int i = 0; i < e2e.length; i++) {
      e2e[i] = finals.get(i).e2eNanos();
      if (!finals.get(i).identityHolds()) {
        violations++;
      }
    }
    long p99 = quantiles(e2e).p99Nanos();
    List<Chain> tailChains = new ArrayList<>();
    for (Chain c : finals) {
      if (c.e2eNanos() >= p99) {
        tailChains.add(c);
      }
    }
    int n = p.pairs.size();
    List<PipelinesReport.Hop> hops = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      hops.add(hop(p, k, tailChains));
    }
    return new PipelinesReport.Pipeline(
        p.name,
        p.firstTopic(),
        p.lastGroup(),
        finals.size(),
        quantiles(e2e),
        violations,
        hops,
        tail(tailChains),
        p.fragment);
  }

  private static PipelinesReport.Hop hop(Path p, int k, List<Chain> tailChains) {
    boolean last = k == p.pairs.size() - 1;
    Map<List<Object>, HopRecord> records = new LinkedHashMap<>();
    Map<List<Object>, Long> processing = new LinkedHashMap<>();
    for (Chain c : p.chains) {
      HopRecord h = c.hops().get(k);
      records.putIfAbsent(List.of(h.key(), h.group()), h);
      if (!last) {
        processing.putIfAbsent(
            List.of(h.key(), h.group(), c.hops().get(k + 1).key()), c.processingNanos()[k]);
      }
    }
    List<HopRecord> hopRecords = new ArrayList<>(records.values());
    long[] e2e = new long[hopRecords.size()];
    for (int i = 0; i < e2e.length; i++) {
      e2e[i] = hopRecords.get(i).e2eNanos();
    }
    String group = p.pairs.get(k).get(1);
    String output = last ? null : p.pairs.get(k + 1).get(0);
    return new PipelinesReport.Hop(
        k + 1,
        p.pairs.get(k).get(0),
        group,
        output,
        ChainAssembly.isInternal(group, output),
        hopRecords.size(),
        quantiles(e2e),
        segments(hopRecords),
        last ? null : quantiles(processing.values().stream().mapToLong(Long::longValue).toArray()),
        tailMeans(tailChains, k, last),
        commitParts(hopRecords));
  }

  // Commit's replication and transaction parts over the records that know commit; null when none
  // waited for its transaction (commit is then all replication, and /api/breakdown shows no parts).
  private static PipelinesReport.CommitParts commitParts(List<HopRecord> records) {
    int commit = HopRecord.SEGMENT_IDS.indexOf(Segment.COMMIT.id());
    long[] replication = new long[records.size()];
    long[] transaction = new long[records.size()];
    int known = 0;
    boolean waited = false;
    for (HopRecord r : records) {
      long commitNanos = r.segment(commit);
      if (commitNanos < 0) {
        continue;
      }
      long wait = Math.max(0, Math.min(commitNanos, r.transactionNanos()));
      waited |= wait > 0;
      replication[known] = commitNanos - wait;
      transaction[known++] = wait;
    }
    if (!waited) {
      return null;
    }
    return new PipelinesReport.CommitParts(
        quantiles(Arrays.copyOf(replication, known)), quantiles(Arrays.copyOf(transaction, known)));
  }

  // Hop k's parts over the tail chains, each summed and divided by the number of chains (a part a
  // chain does not know adds 0), split as the identity splits them: the five segments, or
  // publish+commit where L is unknown, and the processing after the hop.
  private static PipelinesReport.TailMeans tailMeans(List<Chain> tail, int k, boolean last) {
    double[] sums = new double[Segment.values().length];
    boolean[] known = new boolean[sums.length];
    double publishAndCommit = 0;
    boolean combined = false;
    double processing = 0;
    for (Chain c : tail) {
      HopRecord h = c.hops().get(k);
      boolean split = split(h);
      for (Segment s : Segment.values()) {
        long v = h.segment(s.ordinal());
        if (v >= 0 && (split || (s != Segment.PUBLISH && s != Segment.COMMIT))) {
          sums[s.ordinal()] += v;
          known[s.ordinal()] = true;
        }
      }
      if (!split) {
        long v = h.segment(HopRecord.PUBLISH_AND_COMMIT);
        if (v >= 0) {
          publishAndCommit += v;
          combined = true;
        }
      }
      if (!last) {
        processing += c.processingNanos()[k];
      }
    }
    int n = Math.max(1, tail.size());
    Map<String, Double> means = new LinkedHashMap<>();
    for (Segment s : Segment.values()) {
      means.put(s.id(), known[s.ordinal()] ? sums[s.ordinal()] / n : null);
    }
    if (combined) {
      means.put(HopRecord.SEGMENT_IDS.get(HopRecord.PUBLISH_AND_COMMIT), publishAndCommit / n);
    }
    if (!last) {
      means.put(PROCESSING, processing / n);
    }
    return new PipelinesReport.TailMeans(tail.size(), means);
  }

  // Whether a hop knows publish and commit apart (L known).
  private static boolean split(HopRecord h) {
    return h.segment(Segment.PUBLISH.ordinal()) >= 0 && h.segment(Segment.COMMIT.ordinal()) >= 0;
  }

  private static Map<String, PipelinesReport.SegmentFigures> segments(List<HopRecord> records) {
    Map<String, PipelinesReport.SegmentFigures> out = new LinkedHashMap<>();
    for (int s = 0; s < HopRecord.SEGMENT_IDS.size(); s++) {
      long[] values = new long[records.size()];
      int known = 0;
      int[] qualities = new int[Quality.values().length];
      for (HopRecord r : records) {
        if (r.segment(s) >= 0) {
          values[known++] = r.segment(s);
        }
        Quality q = r.segment(s) >= 0 && r.qualities()[s] != null ? r.qualities()[s] : Quality.NONE;
        qualities[q.ordinal()]++;
      }
      long[] sorted = Arrays.copyOf(values, known);
      Arrays.sort(sorted);
      Map<String, Integer> byQuality = new LinkedHashMap<>();
      for (Quality q : Quality.values()) {
        byQuality.put(q.id(), qualities[q.ordinal()]);
      }
      out.put(
          HopRecord.SEGMENT_IDS.get(s),
          new PipelinesReport.SegmentFigures(
              known,
              known == 0 ? -1 : rank(sorted, 0.5),
              known == 0 ? -1 : rank(sorted, 0.99),
              byQuality));
    }
    return out;
  }

  // Over the chains at or above p99: the hop and segment (or processing) with the largest mean
  // share of the chain's end to end. A chain whose end to end is not positive has no shares.
  private static PipelinesReport.Tail tail(List<Chain> tailChains) {
    if (tailChains.isEmpty()) {
      return null;
    }
    Map<List<Object>, Double> shares = new LinkedHashMap<>();
    int records = 0;
    double e2eSum = 0;
    for (Chain c : tailChains) {
      records++;
      e2eSum += c.e2eNanos();
      if (c.e2eNanos() <= 0) {
        continue;
      }
      double e2e = c.e2eNanos();
      for (int k = 0; k < c.hops().size(); k++) {
        HopRecord h = c.hops().get(k);
        for (Segment s : Segment.values()) {
          long v = h.segment(s.ordinal());
          if (v > 0) {
            shares.merge(List.of(k + 1, s.id()), v / e2e, Double::sum);
          }
        }
        if (!split(h)) {
          long v = h.segment(HopRecord.PUBLISH_AND_COMMIT);
          if (v > 0) {
            shares.merge(List.of(k + 1, "publish+commit"), v / e2e, Double::sum);
          }
        }
        if (k < c.processingNanos().length && c.processingNanos()[k] > 0) {
          shares.merge(List.of(k + 1, PROCESSING), c.processingNanos()[k] / e2e, Double::sum);
        }
      }
    }
    List<Object> best = null;
    double bestShare = -1;
    for (Map.Entry<List<Object>, Double> e : shares.entrySet()) {
      if (e.getValue() > bestShare) {
        best = e.getKey();
        bestShare = e.getValue();
      }
    }
    if (best == null) {
      return null;
    }
    int hop = (Integer) best.get(0);
    String segment = (String) best.get(1);
    return new PipelinesReport.Tail(
        hop,
        segment,
        segment.equals(Segment.COMMIT.id()) ? commitPart(tailChains, hop - 1) : null,
        bestShare / records,
        records,
        e2eSum / records);
  }

  // Commit's part with the larger mean share of the tail chains' end to end at hop k: the
  // transaction wait (V - H) or replication (H - L); null when none of them waited for its
  // transaction there (commit is then all replication, as /api/breakdown says nothing of parts)
  // or on a tie.
  private static String commitPart(List<Chain> tailChains, int k) {
    double transaction = 0;
    double replication = 0;
    boolean waited = false;
    for (Chain c : tailChains) {
      HopRecord h = c.hops().get(k);
      long commit = h.segment(Segment.COMMIT.ordinal());
      if (c.e2eNanos() <= 0 || commit < 0) {
        continue;
      }
      long wait = Math.min(commit, h.transactionNanos());
      waited |= wait > 0;
      transaction += wait / (double) c.e2eNanos();
      replication += (commit - wait) / (double) c.e2eNanos();
    }
    if (!waited || transaction == replication) {
      return null;
    }
    return transaction > replication ? "transaction" : "replication";
  }

  static PipelinesReport.Quantiles quantiles(long[] values) {
    if (values.length == 0) {
      return PipelinesReport.Quantiles.NONE;
    }
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return new PipelinesReport.Quantiles(
        rank(sorted, 0.5), rank(sorted, 0.99), rank(sorted, 0.999));
  }

  // Nearest rank, as /api/breakdown: the smallest value with at least q of the values at or below.
  static long rank(long[] sorted, double q) {
    int index = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /** The graph of the listed pipelines, each node and edge once, in the order first met. */
  private static final class GraphBuilder {
    private final Map<String, PipelinesReport.Node> nodes = new LinkedHashMap<>();
    private final Set<PipelinesReport.Edge> edges = new java.util.LinkedHashSet<>();
    private final Set<String> groups = new HashSet<>();

    void add(Path p) {
      for (int k = 0; k < p.pairs.size(); k++) {
        String topic = p.pairs.get(k).get(0);
        String group = p.pairs.get(k).get(1);
        groups.add(group);
        edges.add(new PipelinesReport.Edge(node("topic", topic), node("group", group), "reads"));
        if (k + 1 < p.pairs.size()) {
          edges.add(
              new PipelinesReport.Edge(
                  node("group", group), node("topic", p.pairs.get(k + 1).get(0)), "writes"));
        }
      }
    }

    // The changelog records the listed pipelines' groups wrote: state beside the pipeline.
    void changelogs(Links links) {
      for (Map.Entry<Links.Input, List<RecordKey>> e : links.allOutputs().entrySet()) {
        String group = e.getKey().group();
        if (!groups.contains(group)) {
          continue;
        }
        for (RecordKey output : e.getValue()) {
          if (ChainAssembly.isChangelog(output.topic())) {
            edges.add(
                new PipelinesReport.Edge(
                    node("group", group), node("topic", output.topic()), "changelog"));
          }
        }
      }
    }

    private String node(String kind, String name) {
      String id = kind + ":" + name;
      nodes.computeIfAbsent(id, i -> new PipelinesReport.Node(i, kind, name));
      return id;
    }

    PipelinesReport.Graph build() {
      return new PipelinesReport.Graph(List.copyOf(nodes.values()), List.copyOf(edges));
    }
  }
}
