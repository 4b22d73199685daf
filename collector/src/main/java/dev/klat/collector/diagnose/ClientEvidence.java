package dev.klat.collector.diagnose;

import dev.klat.collector.clienttelemetry.ClientFigure;
import dev.klat.collector.clienttelemetry.ClientInstance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The clients' own figures (KIP-714, pushed through the brokers) as evidence for the findings: a
 * producer's record queue time beside the produce-side findings, a consumer's fetch and offset
 * commit latency beside the consumer-side ones. Where klat sees a producer only through an
 * OpenTelemetry instrumentation, its {@code produce+publish} rest (the time before the leader read
 * the request) cannot be split from the spans; a producer that reports its record queue time splits
 * it: its batching is a finding of its own, taking the client's average queue time (at most the
 * rest), since the client's figures cover all its records over its metric window, not the tail's.
 *
 * <p>Only the Java client's record queue time is the accumulator wait (linger, batch filling, a
 * full buffer). librdkafka (2.5 to 2.12 at least) pushes under the same name the time a produce
 * request, already built, waited for its broker connection's socket: never its linger. Its figure
 * is evidence of a wait on the way to the broker, and makes no batching finding; so does any other
 * client's, whose meaning klat has not read.
 */
final class ClientEvidence {
  /** The most clients of one role a finding names. */
  static final int MAX_CLIENTS = 3;

  /** The knob {@link ProduceAndPublishRules} names the time before the leader read the request. */
  private static final String PRODUCER_OR_NETWORK = "in the producer or on the way to ";

  /** The client software name the Java client sends in ApiVersions. */
  static final String JAVA_CLIENT = "apache-kafka-java";

  private ClientEvidence() {}

  /**
   * The findings with the clients' figures added to those they bear on, and the producer batching
   * findings they make possible.
   *
   * @param clients the client instances serving the window's topic and group
   */
  static List<Finding> apply(List<Finding> findings, List<ClientInstance> clients) {
    List<ClientInstance> producers =
        reporting(clients, ClientInstance.PRODUCER, ClientFigure.RECORD_QUEUE_TIME);
    List<ClientInstance> fetching =
        reporting(clients, ClientInstance.CONSUMER, ClientFigure.FETCH_LATENCY);
    List<ClientInstance> committing =
        reporting(clients, ClientInstance.CONSUMER, ClientFigure.COMMIT_LATENCY);
    if (producers.isEmpty() && fetching.isEmpty() && committing.isEmpty()) {
      return findings;
    }
    List<Finding> out = new ArrayList<>(findings.size() + 1);
    for (Finding f : findings) {
      switch (f.segment()) {
        case "produce", ProduceAndPublishRules.SEGMENT -> {
          out.add(withClients(f, producers, ClientFigure.RECORD_QUEUE_TIME, "record queue time"));
          ClientInstance batcher =
              producers.stream()
                  .filter(ClientEvidence::queueTimeIsBatching)
                  .findFirst()
                  .orElse(null);
          if (f.knob().startsWith(PRODUCER_OR_NETWORK) && batcher != null) {
            out.add(batching(f, batcher));
          }
        }
        case "fetch", CatchUpAndFetchRules.SEGMENT ->
            out.add(withClients(f, fetching, ClientFigure.FETCH_LATENCY, "fetch latency"));
        case "catch-up" ->
            out.add(
                withClients(f, committing, ClientFigure.COMMIT_LATENCY, "offset commit latency"));
        default -> out.add(f);
      }
    }
    out.sort(Comparator.comparingDouble(Finding::tailShare).reversed());
    return out;
  }

  // The clients of a role that reported a figure, the largest average first.
  private static List<ClientInstance> reporting(
      List<ClientInstance> clients, String role, ClientFigure figure) {
    return clients.stream()
        .filter(c -> c.role().equals(role))
        .filter(c -> c.figure(figure) != null)
        .sorted(Comparator.comparingDouble((ClientInstance c) -> sortKey(c, figure)).reversed())
        .limit(MAX_CLIENTS)
        .toList();
  }

  private static double sortKey(ClientInstance c, ClientFigure figure) {
    ClientInstance.Aggregate a = c.figure(figure);
    return a.hasAvg() ? a.avg() : a.max();
  }

  private static Finding withClients(
      Finding f, List<ClientInstance> clients, ClientFigure figure, String what) {
    if (clients.isEmpty()) {
      return f;
    }
    Map<String, Object> evidence = new LinkedHashMap<>(f.evidence());
    for (ClientInstance c : clients) {
      evidence.put(label(c, what), figures(c.figure(figure)));
    }
    return new Finding(
        f.segment(),
        f.knob(),
        f.tailShare(),
        f.explainedSeconds(),
        evidence,
        f.suggestion(),
        f.records());
  }

  /** Whether the client's record queue time is its accumulator wait (the Java client's). */
  static boolean queueTimeIsBatching(ClientInstance producer) {
    return JAVA_CLIENT.equals(producer.softwareName());
  }

  // What a producer reporting its record queue time explains of the time before the leader.
  private static Finding batching(Finding rest, ClientInstance producer) {
    ClientInstance.Aggregate queue = producer.figure(ClientFigure.RECORD_QUEUE_TIME);
    double avgMs = queue.hasAvg() ? queue.avg() : queue.max();
    double explainedSeconds = Math.min(rest.explainedSeconds(), avgMs / 1e3);
    double share =
        rest.explainedSeconds() <= 0
            ? 0
            : rest.tailShare() * explainedSeconds / rest.explainedSeconds();
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put(label(producer, "record queue time"), figures(queue));
    evidence.put(
        "before the leader read the request, tail mean", ms(rest.explainedSeconds() * 1e3));
    evidence.put(
        "what the client's figures are",
        "its own average and maximum over its metric window, across all its records (not the"
            + " tail's): the finding takes its average, at most the time before the leader");
    String who = "producer " + name(producer) + " (" + producer.softwareText() + ")";
    String linger = "linger.ms and batch.size";
    return new Finding(
        rest.segment(),
        "batching in producer " + name(producer),
        share,
        explainedSeconds,
        evidence,
        who
            + " reports record queue time "
            + figures(queue)
            + ": most of produce waits in its batching. Look at "
            + linger
            + ": a smaller linger sends sooner at the cost of smaller batches; a record queue time"
            + " near its linger means batches leave on the timer, well above it means they wait"
            + " for in-flight requests or buffer memory.",
        rest.records());
  }

  private static String label(ClientInstance c, String what) {
    if (what.equals("record queue time") && !queueTimeIsBatching(c)) {
      what =
          c.softwareName().toLowerCase(Locale.ROOT).contains("rdkafka")
              ? "record queue time (librdkafka: a built produce request's wait for the socket, not"
                  + " its linger)"
              : "record queue time (this client's meaning of it unread by klat)";
    }
    return c.role()
        + " "
        + name(c)
        + " ("
        + c.softwareText()
        + "), its own "
        + what
        + " (KIP-714: avg and max over its metric window, not per record)";
  }

  private static String name(ClientInstance c) {
    return c.clientId().isEmpty() ? c.clientInstanceId() : c.clientId();
  }

  private static String figures(ClientInstance.Aggregate a) {
    return "avg " + number(a.avg()) + ", max " + number(a.max());
  }

  private static String number(double ms) {
    return Double.isNaN(ms) ? "not reported" : ms(ms);
  }

  private static String ms(double ms) {
    return String.format(Locale.ROOT, "%.1f ms", ms);
  }
}
