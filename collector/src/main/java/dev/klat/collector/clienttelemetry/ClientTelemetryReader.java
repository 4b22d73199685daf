package dev.klat.collector.clienttelemetry;

import dev.klat.collector.receive.WireNames;
import dev.klat.model.ClientTelemetryAttributes;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads one client's forwarded payload (a resource marked {@code klat.telemetry.source=kip-714} and
 * its data points) into a {@link ClientInstance}. Everything is checked here: the instance id must
 * be a short id, every string kept at most {@link WireNames#MAX_NAME_CHARS} characters, a topic a
 * Kafka topic name, at most {@link #MAX_TOPICS} topics kept, a value finite and within {@link
 * #MAX_VALUE}. A value the client pushed as NaN (a Kafka {@code Avg} or {@code Max} with no sample
 * in its window) means "nothing to report" and leaves the figure out. Pure; thread-safe.
 */
public final class ClientTelemetryReader {
  /** The most topics kept per client instance; further topics are counted, not kept. */
  public static final int MAX_TOPICS = 64;

  /** The largest value kept (ms, counts, ratios): anything above is a broken or hostile client. */
  static final double MAX_VALUE = 1e12;

  /** The longest client instance id: a UUID (36) or Kafka's base64 {@code Uuid} (22). */
  static final int MAX_INSTANCE_ID_CHARS = 64;

  /** The resource attribute a Java client and librdkafka put a consumer's group id in. */
  static final String GROUP_ID = "group_id";

  private static final String PRODUCER_PREFIX = "org.apache.kafka.producer.";
  private static final String CONSUMER_PREFIX = "org.apache.kafka.consumer.";
  private static final String TOPIC = "topic";
  private static final String CLIENT_ID_POINT_ATTRIBUTE = "client_id";

  private ClientTelemetryReader() {}

  /** One data point of the payload: its metric's name, its attributes and its value. */
  public record Point(String name, Map<String, String> attributes, double value) {}

  /** What a payload gave: an instance, or the outcome it is counted under and why. */
  public record Read(ClientInstance instance, String outcome, String problem, Counts counts) {}

  /** What was dropped from a payload that was otherwise taken. */
  public record Counts(int valuesRefused, int topicsDropped) {
    static final Counts NONE = new Counts(0, 0);
  }

  /** Whether a resource is a forwarded client's ({@code klat.telemetry.source=kip-714}). */
  public static boolean isClientTelemetry(Map<String, Object> resource) {
    return ClientTelemetryAttributes.SOURCE_KIP_714.equals(
        resource.get(ClientTelemetryAttributes.SOURCE.name()));
  }

  /**
   * Reads a payload.
   *
   * @param resource the resource's attributes (the forwarder's and the client's, merged)
   * @param points its data points, in payload order
   * @param nowNanos when it was received
   */
  public static Read read(Map<String, Object> resource, List<Point> points, long nowNanos) {
    String instanceId = string(resource, ClientTelemetryAttributes.CLIENT_INSTANCE_ID.name());
    String problem = instanceIdProblem(instanceId);
    if (problem != null) {
      return invalid(problem);
    }
    String[] names = {
      ClientTelemetryAttributes.CLIENT_ID.name(),
      ClientTelemetryAttributes.CLIENT_SOFTWARE_NAME.name(),
      ClientTelemetryAttributes.CLIENT_SOFTWARE_VERSION.name(),
      ClientTelemetryAttributes.CLIENT_PRINCIPAL.name(),
      GROUP_ID
    };
    String[] values = new String[names.length];
    for (int i = 0; i < names.length; i++) {
      values[i] = string(resource, names[i]);
      problem = values[i] == null ? null : WireNames.nameProblem(names[i], values[i]);
      if (problem != null) {
        return invalid(problem);
      }
    }
    Map<ClientFigure, double[]> figures = new EnumMap<>(ClientFigure.class);
    TreeSet<String> topics = new TreeSet<>();
    int valuesRefused = 0;
    int topicsDropped = 0;
    int producerPoints = 0;
    int consumerPoints = 0;
    String pointClientId = null;
    for (Point p : points) {
      if (p.name().startsWith(PRODUCER_PREFIX)) {
        producerPoints++;
      } else if (p.name().startsWith(CONSUMER_PREFIX)) {
        consumerPoints++;
      } else {
        continue;
      }
      String topic = p.attributes().get(TOPIC);
      if (topic != null && !topics.contains(topic)) {
        if (WireNames.topicProblem(topic) != null || topics.size() >= MAX_TOPICS) {
          topicsDropped++;
        } else {
          topics.add(topic);
        }
      }
      if (pointClientId == null) {
        String id = p.attributes().get(CLIENT_ID_POINT_ATTRIBUTE);
        if (id != null && WireNames.nameProblem("client_id", id) == null) {
          pointClientId = id;
        }
      }
      ClientFigure.Named named = ClientFigure.of(p.name());
      if (named == null || Double.isNaN(p.value())) {
        continue;
      }
      if (Double.isInfinite(p.value()) || p.value() < 0 || p.value() > MAX_VALUE) {
        valuesRefused++;
        continue;
      }
      double[] stats =
          figures.computeIfAbsent(named.figure(), f -> new double[] {Double.NaN, Double.NaN});
      int slot = named.avg() ? 0 : 1;
      // Several points of one name (one per broker or partition): the largest.
      stats[slot] = Double.isNaN(stats[slot]) ? p.value() : Math.max(stats[slot], p.value());
    }
    if (producerPoints + consumerPoints == 0) {
      return new Read(
          null, ClientTelemetry.NO_KNOWN_METRICS, "no producer or consumer metric", Counts.NONE);
    }
    // A client is one of the two; both kinds of names in one payload is no client klat knows.
    String role =
        consumerPoints == 0
            ? ClientInstance.PRODUCER
            : producerPoints == 0 ? ClientInstance.CONSUMER : ClientInstance.UNKNOWN;
    Map<ClientFigure, ClientInstance.Aggregate> aggregates = new EnumMap<>(ClientFigure.class);
    figures.forEach((f, s) -> aggregates.put(f, new ClientInstance.Aggregate(s[0], s[1])));
    String clientId = values[0] != null ? values[0] : pointClientId;
    ClientInstance instance =
        new ClientInstance(
            instanceId,
            clientId == null ? "" : clientId,
            values[1] == null ? "" : values[1],
            values[2] == null ? "" : values[2],
            values[3] == null ? "" : values[3],
            role,
            values[4] == null || values[4].isEmpty() ? null : values[4],
            List.copyOf(topics),
            brokerId(resource.get(ClientTelemetryAttributes.BROKER_ID.name())),
            flag(resource.get(ClientTelemetryAttributes.CLIENT_TERMINATING.name())),
            nowNanos,
            aggregates);
    return new Read(
        instance, ClientTelemetry.ACCEPTED, null, new Counts(valuesRefused, topicsDropped));
  }

  private static Read invalid(String problem) {
    return new Read(null, ClientTelemetry.INVALID, problem, Counts.NONE);
  }

  // A short id of letters, digits, '-' and '_' (a UUID, or Kafka's base64url Uuid).
  static String instanceIdProblem(String id) {
    if (id == null || id.isEmpty()) {
      return "no " + ClientTelemetryAttributes.CLIENT_INSTANCE_ID.name() + " on the resource";
    }
    if (id.length() > MAX_INSTANCE_ID_CHARS) {
      return ClientTelemetryAttributes.CLIENT_INSTANCE_ID.name()
          + " longer than "
          + MAX_INSTANCE_ID_CHARS
          + " characters";
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!ok) {
        return ClientTelemetryAttributes.CLIENT_INSTANCE_ID.name()
            + " is not an id (letters, digits, '-', '_')";
      }
    }
    return null;
  }

  // A string attribute; another type is taken as absent (klat only reads strings here).
  private static String string(Map<String, Object> resource, String key) {
    return resource.get(key) instanceof String s ? s : null;
  }

  private static int brokerId(Object value) {
    long id;
    if (value instanceof Long l) {
      id = l;
    } else if (value instanceof String s) {
      try {
        id = Long.parseLong(s);
      } catch (NumberFormatException e) {
        return -1;
      }
    } else {
      return -1;
    }
    return id >= 0 && id <= Integer.MAX_VALUE ? (int) id : -1;
  }

  private static boolean flag(Object value) {
    return value instanceof Boolean b ? b : value instanceof Long l && l != 0;
  }
}
