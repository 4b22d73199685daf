package dev.klat.collector.diagnose;

import dev.klat.collector.pipeline.Pipelines;
import dev.klat.collector.pipeline.PipelinesReport;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * What {@code /api/diagnosis?pipeline=NAME} answers: where the pipeline's slowest chains spent
 * their time (the hop and the segment, or the processing in an application, with the largest mean
 * share of their end to end), and what explains it. A hop's records are ordinary breakdowns of its
 * (input topic, group), so a segment is explained by the per-segment rules over that pair's tail,
 * the findings of that segment first; processing is the application's own time, which no Kafka
 * setting explains, so its one finding names the application.
 *
 * @param pipeline the pipeline's name
 * @param chains complete chains in the window, each final record once
 * @param p99Seconds the chains' end-to-end p99, or null without chains
 * @param hop the hop the slowest chains' time went to, or null without chains
 * @param segment a segment id or {@code processing}, or null without chains
 * @param tailShare the mean share of the slowest chains' end to end in that hop's segment
 * @param tailChains how many chains that share is over (those at or above the p99)
 * @param application the group of the application whose processing it is, or null
 * @param report the diagnosis of the hop's (input topic, group) tail, its findings of the named
 *     segment first (for processing: the application's finding alone)
 */
public record PipelineDiagnosis(
    String pipeline,
    int chains,
    Double p99Seconds,
    Hop hop,
    String segment,
    double tailShare,
    int tailChains,
    String application,
    DiagnosisReport report) {

  /**
   * A hop of the pipeline.
   *
   * @param index 1 to n
   * @param inputTopic the topic its group read
   * @param group the consumer group
   * @param outputTopic what it produced to, null on the last hop
   */
  public record Hop(int index, String inputTopic, String group, String outputTopic) {}

  /**
   * The diagnosis of {@code pipeline}.
   *
   * @param hopDiagnosis the ordinary diagnosis of a (topic, group) over the same window
   */
  public static PipelineDiagnosis of(
      PipelinesReport.Pipeline pipeline, BiFunction<String, String, DiagnosisReport> hopDiagnosis) {
    PipelinesReport.Tail tail = pipeline.tail();
    Double p99 = pipeline.e2e().p99Nanos() < 0 ? null : pipeline.e2e().p99Nanos() / 1e9;
    if (tail == null) {
      return new PipelineDiagnosis(
          pipeline.name(),
          pipeline.count(),
          p99,
          null,
          null,
          0,
          0,
          null,
          new DiagnosisReport(0, null, 0, 0, List.of(), "No complete chain in the window."));
    }
    PipelinesReport.Hop h = pipeline.hops().get(tail.hop() - 1);
    Hop hop = new Hop(h.index(), h.inputTopic(), h.group(), h.outputTopic());
    if (tail.segment().equals(Pipelines.PROCESSING)) {
      double processingP99Seconds =
          h.processing() == null || h.processing().p99Nanos() < 0
              ? 0
              : h.processing().p99Nanos() / 1e9;
      Finding finding =
          new Finding(
              Pipelines.PROCESSING,
              "application " + h.group(),
              tail.share(),
              tail.share() * tail.meanE2eNanos() / 1e9,
              Map.of(
                  "hop", h.index(),
                  "inputTopic", h.inputTopic(),
                  "outputTopic", String.valueOf(h.outputTopic()),
                  "processingP99Seconds", processingP99Seconds),
              "The application of group "
                  + h.group()
                  + " holds the records between polling them from "
                  + h.inputTopic()
                  + " and producing to "
                  + h.outputTopic()
                  + ": its own work, a Kafka Streams task's record queue or commit, a batch being"
                  + " filled, or a slow downstream call. No Kafka setting explains it: profile the"
                  + " application, or look at its batching and its calls.",
              tail.records());
      return new PipelineDiagnosis(
          pipeline.name(),
          pipeline.count(),
          p99,
          hop,
          tail.segment(),
          tail.share(),
          tail.records(),
          h.group(),
          new DiagnosisReport(
              h.count(), p99, tail.records(), tail.meanE2eNanos() / 1e9, List.of(finding), null));
    }
    DiagnosisReport r = hopDiagnosis.apply(h.inputTopic(), h.group());
    List<Finding> ordered =
        r.findings().stream()
            .sorted(
                (a, b) ->
                    Boolean.compare(
                        !segmentMatches(a.segment(), tail.segment()),
                        !segmentMatches(b.segment(), tail.segment())))
            .toList();
    return new PipelineDiagnosis(
        pipeline.name(),
        pipeline.count(),
        p99,
        hop,
        tail.segment(),
        tail.share(),
        tail.records(),
        null,
        new DiagnosisReport(
            r.records(),
            r.p99Seconds(),
            r.tailRecords(),
            r.tailMeanSeconds(),
            ordered,
            r.unexplained(),
            r.tailCaptured(),
            r.tailOpentelemetry()));
  }

  // publish+commit covers both of its segments.
  private static boolean segmentMatches(String finding, String tail) {
    return finding.equals(tail) || tail.contains(finding) || finding.contains(tail);
  }
}
