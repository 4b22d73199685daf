package dev.klat.collector.clienttelemetry;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One client instance as its latest push showed it: who it is (as the broker saw it, and the
 * client's own resource), and its own aggregates. Immutable; every string was checked where it
 * entered ({@link ClientTelemetryReader}).
 *
 * @param clientInstanceId the id the broker gave the client for its telemetry
 * @param clientId the client's {@code client.id} ("" when it has none)
 * @param softwareName as the client sent it in ApiVersions ("" when unknown)
 * @param softwareVersion likewise
 * @param principal the push connection's principal ("" when unknown)
 * @param role {@code producer}, {@code consumer} or {@code unknown}, from its metric names
 * @param groupId the consumer's {@code group.id}, or null
 * @param topics the topics its topic-tagged metrics name, at most {@link
 *     ClientTelemetryReader#MAX_TOPICS}, sorted; empty when it pushes none (librdkafka)
 * @param brokerId the node id of the broker that received the push, or -1
 * @param terminating whether the push was the client's last, sent as it closed
 * @param lastPushNanos when the collector received it ({@code System.nanoTime()} clock)
 * @param figures its aggregates; a figure it did not push (or pushed as NaN: no samples in its
 *     window) is absent
 */
public record ClientInstance(
    String clientInstanceId,
    String clientId,
    String softwareName,
    String softwareVersion,
    String principal,
    String role,
    String groupId,
    List<String> topics,
    int brokerId,
    boolean terminating,
    long lastPushNanos,
    Map<ClientFigure, Aggregate> figures) {

  /** {@value}. */
  public static final String PRODUCER = "producer";

  /** {@value}. */
  public static final String CONSUMER = "consumer";

  /** {@value}. */
  public static final String UNKNOWN = "unknown";

  public ClientInstance {
    topics = List.copyOf(topics);
    figures = figures.isEmpty() ? Map.of() : new EnumMap<>(figures);
  }

  /** The figure's aggregate, or null when the client did not push it. */
  public Aggregate figure(ClientFigure figure) {
    return figures.get(figure);
  }

  /** {@code name/version}, or what of them is known. */
  public String software() {
    if (softwareVersion.isEmpty()) {
      return softwareName;
    }
    return softwareName + "/" + softwareVersion;
  }

  /** {@code softwareName softwareVersion} for prose ("librdkafka 2.10.0"), "unknown software". */
  public String softwareText() {
    String s = (softwareName + " " + softwareVersion).trim();
    return s.isEmpty() ? "unknown software" : s;
  }

  /**
   * Whether it is one of the clients of a topic and group, as {@code /api/breakdown} filters them:
   * a producer whose topics include the topic, a consumer of the group whose topics include it. A
   * client that names no topics (librdkafka pushes none) matches any topic. With both filters null
   * every client matches; with one set, a client of unknown role matches none.
   */
  public boolean serves(String topic, String group) {
    if (topic == null && group == null) {
      return true;
    }
    boolean topicMatches = topic == null || topics.isEmpty() || topics.contains(topic);
    return switch (role) {
      case PRODUCER -> topicMatches && (topic != null || group == null);
      case CONSUMER -> topicMatches && (group == null || group.equals(groupId));
      default -> false;
    };
  }

  /**
   * A client's own aggregate of one figure: its average and maximum over its metric window, in the
   * figure's unit (ms for latencies), NaN when not pushed.
   */
  public record Aggregate(double avg, double max) {
    /** Whether the client pushed its average. */
    public boolean hasAvg() {
      return !Double.isNaN(avg);
    }

    /** Whether the client pushed its maximum. */
    public boolean hasMax() {
      return !Double.isNaN(max);
    }
  }
}
