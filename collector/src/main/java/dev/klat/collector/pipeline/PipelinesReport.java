package dev.klat.collector.pipeline;

import java.util.List;
import java.util.Map;

/**
 * What {@code GET /api/pipelines} answers (the collector contract of section 9 of the latency
 * model): the window's pipelines, most hops first, then most chains, and the graph of their topics
 * and groups. Durations are nanoseconds, -1 where there is no value.
 *
 * @param windowNanos the window the chains were joined in
 * @param pipelines at most {@code pipeline.max-pipelines}: most hops first, then fragments last,
 *     then most chains
 * @param graph the topics and groups of the listed pipelines, with their changelogs
 * @param counts what the window held beyond the listed pipelines
 */
public record PipelinesReport(
    long windowNanos, List<Pipeline> pipelines, Graph graph, Counts counts) {

  /** Nearest-rank quantiles; -1 when there is no value. */
  public record Quantiles(long p50Nanos, long p99Nanos, long p999Nanos) {
    static final Quantiles NONE = new Quantiles(-1, -1, -1);
  }

  /**
   * One segment over a hop's records, as {@code /api/breakdown}'s {@code segments} entry.
   *
   * @param count records that know it
   * @param p50Nanos the median, -1 when {@code count} is 0
   * @param p99Nanos the p99, -1 when {@code count} is 0
   * @param quality per quality id, how many records had the segment at that quality ({@code none}
   *     where unknown, so the counts add up to the hop's count)
   */
  public record SegmentFigures(
      int count, long p50Nanos, long p99Nanos, Map<String, Integer> quality) {}

  /**
   * A hop's parts over the pipeline's p99 tail: the chains whose end to end is at or above the
   * pipeline's p99 (those {@link Tail} weighs), each part's sum over them divided by their number.
   * A part a chain does not know counts 0 in that chain, so that the parts of every hop add up to
   * the chains' mean end to end (when their identities hold).
   *
   * @param chains how many chains
   * @param meanNanos per part, the mean: the five segment ids ({@code null} when no chain knows
   *     it), {@code publish+commit} only when some chain's hop had no {@code L} (its publish and
   *     commit are then in that part), {@code processing} except on the last hop
   */
  public record TailMeans(int chains, Map<String, Double> meanNanos) {}

  /**
   * One hop: (input topic, group) -> application -> output topic.
   *
   * @param index 1 to n
   * @param inputTopic the topic the group read
   * @param group the consumer group (the application)
   * @param outputTopic the topic it produced to, null on the last hop
   * @param internal whether the output is a Kafka Streams repartition topic of the same application
   * @param count the hop's records (each input once, however many outputs it had)
   * @param e2e the hop's end to end
   * @param segments per segment id, as {@code /api/breakdown}
   * @param processing the time in the application before the output was sent; null on the last hop
   * @param p99Tail its parts over the pipeline's p99 tail
   * @param commitParts commit's replication ({@code H - L}) and transaction ({@code V - H}) parts
   *     over the hop's records that know commit (section 9 of the latency model), or null when none
   *     of them waited for its transaction, as {@code /api/breakdown}
   */
  public record Hop(
      int index,
      String inputTopic,
      String group,
      String outputTopic,
      boolean internal,
      int count,
      Quantiles e2e,
      Map<String, SegmentFigures> segments,
      Quantiles processing,
      TailMeans p99Tail,
      CommitParts commitParts) {}

  /**
   * Commit's two parts over a hop's records that know commit.
   *
   * @param replication {@code H - L}
   * @param transaction {@code V - H}
   */
  public record CommitParts(Quantiles replication, Quantiles transaction) {}

  /**
   * Where the slowest chains' time went: over the chains at or above the pipeline's p99, the hop
   * and segment (or {@code processing}) with the largest mean share of the chain's end to end.
   *
   * @param hop the hop's index
   * @param segment a segment id or {@code processing}
   * @param part when {@code segment} is commit and a chain of the tail waited for its transaction
   *     at that hop, commit's part with the larger mean share ({@code replication}, {@code H - L},
   *     or {@code transaction}, {@code V - H}); else null
   * @param share the mean share, 0 to 1
   * @param records how many chains
   * @param meanE2eNanos their mean end to end
   */
  public record Tail(
      int hop, String segment, String part, double share, int records, double meanE2eNanos) {}

  /**
   * One pipeline: the path its chains follow.
   *
   * @param name {@code firstTopic->lastGroup}, or the name {@code pipeline.names} gives it
   * @param firstTopic the first record's topic
   * @param lastGroup the group that read the last record
   * @param count complete chains ending in that group, each final record once
   * @param e2e the chains' end to end
   * @param identityViolations chains whose parts do not add up to their end to end
   * @param hops the hops, first to last
   * @param tail where the slowest chains' time went, or null without chains
   * @param fragment whether its first topic is an output topic of another pipeline of the window:
   *     its chains start with records produced there without a linked input (sampled on their own,
   *     mid-chain), a part of that other pipeline's path
   */
  public record Pipeline(
      String name,
      String firstTopic,
      String lastGroup,
      int count,
      Quantiles e2e,
      int identityViolations,
      List<Hop> hops,
      Tail tail,
      boolean fragment) {

    /** How many hops its chains cross. */
    public int hopCount() {
      return hops.size();
    }
  }

  /** A topic or group: {@code id} is {@code topic:NAME} or {@code group:NAME}. */
  public record Node(String id, String kind, String name) {}

  /** {@code reads} (topic to group), {@code writes} or {@code changelog} (group to topic). */
  public record Edge(String from, String to, String kind) {}

  /** The topics and groups of the listed pipelines and the edges between them. */
  public record Graph(List<Node> nodes, List<Edge> edges) {}

  /**
   * What the window held besides the listed pipelines.
   *
   * @param chains complete chains
   * @param incomplete chains not followed to their end within the window
   * @param cut chains cut by the hop or chain limits or a loop
   * @param unknownGroups inputs whose group could not be told ("?")
   * @param notShown pipelines beyond {@code pipeline.max-pipelines}
   */
  public record Counts(int chains, int incomplete, int cut, int unknownGroups, int notShown) {}
}
