package dev.klat.collector.receive;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.clienttelemetry.ClientTelemetry;
import dev.klat.collector.clienttelemetry.ClientTelemetryReader;
import dev.klat.collector.correlate.join.ClockSync;
import dev.klat.collector.correlate.join.ConsumerSpan;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinInput;
import dev.klat.collector.correlate.join.OtelRecordSpan;
import dev.klat.collector.correlate.join.ProducerSpan;
import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.model.ClientTelemetryAttributes;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import dev.klat.model.TagKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decodes OTLP export requests and hands their content to the join and the metric merger, for both
 * transports (HTTP and gRPC). Thread-safe.
 */
public final class OtlpIngest implements OtlpSink {
  // Shared: stackless, and a full table refuses many requests in a row.
  private static final BusyException JOIN_TABLE_FULL =
      new BusyException("join-table-full", "join table full, retry later");

  /** The reason a metric point the merger cannot use is counted under. */
  static final String REASON_MALFORMED = "malformed-point";

  private static final Set<String> KLAT_METRICS = new HashSet<>();
  // Labels of agent metrics holding names (topics are checked by Kafka's rule).
  private static final List<String> NAME_LABELS =
      List.of(TagKeys.GROUP, TagKeys.CLIENT_ID, TagKeys.REASON, TagKeys.INSTANT);

  static {
    for (MetricDef def : MetricDef.all()) {
      KLAT_METRICS.add(def.name());
    }
  }

  private final Correlator correlator;
  private final AgentMetrics agentMetrics;
  private final ReceiverStats stats = new ReceiverStats();
  private final ProbeIngest probes;
  private final ClientTelemetry clientTelemetry;

  /** An ingest whose broker probe records go nowhere but the counts. */
  public OtlpIngest(Correlator correlator, AgentMetrics agentMetrics) {
    this(correlator, agentMetrics, new ProbeTimelines(1, 1), (broker, offset, uncertainty) -> {});
  }

  /** An ingest with client telemetry kept with the defaults. */
  public OtlpIngest(
      Correlator correlator,
      AgentMetrics agentMetrics,
      ProbeTimelines probeTimelines,
      BrokerClocks brokerClocks) {
    this(correlator, agentMetrics, probeTimelines, brokerClocks, new ClientTelemetry());
  }

  /**
   * @param correlator where spans go
   * @param agentMetrics where metric points go
   * @param probeTimelines where the broker probes' ranges go
   * @param brokerClocks receives each broker's measurement of its clock against the collector's
   * @param clientTelemetry where the clients' pushed metrics (KIP-714) go
   */
  public OtlpIngest(
      Correlator correlator,
      AgentMetrics agentMetrics,
      ProbeTimelines probeTimelines,
      BrokerClocks brokerClocks,
      ClientTelemetry clientTelemetry) {
    this.correlator = correlator;
    this.clientTelemetry = clientTelemetry;
    this.agentMetrics = agentMetrics;
    this.probes = new ProbeIngest(probeTimelines, brokerClocks::offer, System::nanoTime, stats);
  }

  /** Receives a broker probe's measurement of the broker's clock against the collector's. */
  public interface BrokerClocks {
    /**
     * @param brokerId the broker's node id
     * @param offsetNanos {@code clock(collector) - clock(broker)}
     * @param uncertaintyNanos its half-width
     */
    void offer(int brokerId, long offsetNanos, long uncertaintyNanos);
  }

  /** The counts of both receivers. */
  @Override
  public ReceiverStats stats() {
    return stats;
  }

  @Override
  public void admitTraces() throws BusyException {
    if (correlator.saturated()) {
      throw JOIN_TABLE_FULL;
    }
  }

  @Override
  public byte[] traces(byte[] body, int length, boolean json) throws MalformedException {
    TraceBatch batch = new TraceBatch();
    if (json) {
      OtlpJson.decodeTraces(body, length, batch);
    } else {
      OtlpProtobuf.decodeTraces(body, length, batch);
    }
    // Only a body that decoded to the end reaches the join: a malformed one is refused whole, so
    // that the sender's retry adds nothing twice.
    stats.spansReceived.addAndGet(batch.received);
    offer(batch, Correlator.NO_SOURCE);
    return partialSuccess(json, batch.rejected, batch.firstError, "rejectedSpans");
  }

  /**
   * Decodes an OTLP protobuf trace request read from the join role's span topic and offers its
   * spans to the join as read from {@code source} (see {@link Correlator#offerProducer(
   * ProducerSpan, long)}). Its spans are not counted as received here: the ingest role that wrote
   * them counted them, and the collectors' figures add up.
   *
   * @return null, or why the body did not decode (then nothing of it reached the join)
   */
  public String tracesFrom(byte[] body, long source) {
    TraceBatch batch = new TraceBatch();
    try {
      OtlpProtobuf.decodeTraces(body, body.length, batch);
    } catch (MalformedException e) {
      return e.getMessage();
    }
    offer(batch, source);
    return null;
  }

  /**
   * What a metrics record from the join role's topic held.
   *
   * @param error null, or why the body did not decode
   * @param newestPointNanos the latest time among its points (their clock), or {@code
   *     Long.MIN_VALUE}
   */
  public record MetricsRead(String error, long newestPointNanos) {}

  /**
   * Decodes an OTLP protobuf metrics request read from the join role's metrics topic, counting its
   * cumulative streams from where {@code takeOver} says another member stopped.
   */
  public MetricsRead metricsFrom(byte[] body, AgentMetrics.TakeOver takeOver) {
    long[] newest = {Long.MIN_VALUE};
    try {
      metrics(body, body.length, false, takeOver, newest);
      return new MetricsRead(null, newest[0]);
    } catch (MalformedException e) {
      return new MetricsRead(e.getMessage(), Long.MIN_VALUE);
    }
  }

  /**
   * Decodes the broker probes' OTLP protobuf logs request read from the join role's logs topic.
   *
   * @return null, or why the body did not decode
   */
  public String logsFrom(byte[] body) {
    try {
      logs(body, body.length);
      return null;
    } catch (MalformedException e) {
      return e.getMessage();
    }
  }

  private void offer(TraceBatch batch, long source) {
    for (JoinInput item : batch.items) {
      if (item instanceof ProducerSpan p) {
        correlator.offerProducer(p, source);
      } else if (item instanceof ConsumerSpan c) {
        correlator.offerConsumer(c, source);
      } else if (item instanceof OtelRecordSpan o) {
        correlator.acceptOtel(o, source);
      } else {
        ClockSync sync = (ClockSync) item; // the input left: JoinInput is sealed
        correlator.offerClockSync(sync.instanceId(), sync.offsetNanos(), sync.uncertaintyNanos());
      }
    }
    batch.rejectedByReason.forEach(stats::spansRejected);
    stats.spansNotKlat.addAndGet(batch.notKlat);
    stats.otelSpans(batch.otelOutcomes);
  }

  /**
   * A request's spans mapped for the join as they are decoded, in order, each resource's clock
   * sample before its first span, held until the whole body has decoded.
   */
  private static final class TraceBatch implements OtlpProtobuf.SpanSink {
    final List<JoinInput> items = new ArrayList<>();
    final Map<String, Long> rejectedByReason = new HashMap<>(4);
    long received;
    long rejected;
    long notKlat;
    // Spans not klat's, by what OtelSpanReader made of them (OtelSpanReader.Outcome ordinals).
    final long[] otelOutcomes = new long[OtelSpanReader.Outcome.values().length];
    String firstError = "";
    private Map<String, Object> resource;

    @Override
    public void accept(OtlpSpan span) {
      received++;
      if (span.resource != resource) {
        // The spans of one resource share its map: one clock sample per resource, not per span.
        resource = span.resource;
        ClockSync sync = SpanMapper.clockSync(resource);
        if (sync != null) {
          items.add(sync);
        }
      }
      SpanMapper.Result result = SpanMapper.map(span);
      if (result.otelOutcome() != null) {
        // An OpenTelemetry instrumentation's span (section 10 of the latency model): counted here;
        // a record span goes to the join (Correlator.acceptOtel) with klat's, in request order.
        otelOutcomes[result.otelOutcome().ordinal()]++;
      }
      if (result.producer() != null) {
        items.add(result.producer());
      } else if (result.consumer() != null) {
        items.add(result.consumer());
      } else if (result.otel() != null) {
        items.add(result.otel());
      } else if (result.rejected() != null) {
        rejectedByReason.merge(result.reason(), 1L, Long::sum);
        if (rejected++ == 0) {
          firstError = result.rejected();
        }
      } else if (result == SpanMapper.Result.IGNORED) {
        notKlat++;
      }
    }
  }

  /**
   * The broker probes' log records; OTLP/JSON is refused by the receiver (the probe sends
   * protobuf).
   */
  @Override
  public byte[] logs(byte[] body, int length) throws MalformedException {
    ProbeIngest.Rejections rejections = probes.accept(body, length);
    correlator.brokerDataArrived();
    return partialSuccess(false, rejections.count(), rejections.firstError(), "rejectedLogRecords");
  }

  @Override
  public byte[] metrics(byte[] body, int length, boolean json) throws MalformedException {
    return metrics(body, length, json, AgentMetrics.TakeOver.NONE, new long[1]);
  }

  private byte[] metrics(
      byte[] body, int length, boolean json, AgentMetrics.TakeOver takeOver, long[] newest)
      throws MalformedException {
    List<OtlpMetricPoint> points =
        json
            ? OtlpJson.decodeMetrics(body, length)
            : OtlpMetricsProtobuf.decodeMetrics(body, length);
    long rejected = 0;
    String firstError = "";
    Map<String, Object> resource = null;
    boolean clientResource = false;
    // Forwarded client telemetry (KIP-714) by client instance: a Java client sends one
    // ResourceMetrics per metric, each with its resource, so a payload is all of them.
    ClientPayloads clients = null;
    Map<String, Long> rejectedByReason = new HashMap<>(4);
    for (OtlpMetricPoint p : points) {
      if (p.resource != resource) {
        resource = p.resource;
        clientResource = ClientTelemetryReader.isClientTelemetry(resource);
        if (!clientResource) {
          offerClockSync(resource);
        }
      }
      newest[0] = Math.max(newest[0], p.timeNanos);
      if (clientResource) {
        // Not an agent's: its own path, never the agent metrics' (docs/client-telemetry.md).
        clients = clients == null ? new ClientPayloads() : clients;
        clients.add(resource, p);
        continue;
      }
      String[] error = accept(p, takeOver);
      if (error != null) {
        rejectedByReason.merge(error[0], 1L, Long::sum);
        if (rejected++ == 0) {
          firstError = error[1];
        }
      }
    }
    if (clients != null) {
      for (ClientPayloads.Payload payload : clients.byInstance.values()) {
        String refused = clientTelemetry.accept(payload.resource, payload.points);
        if (refused != null) {
          firstError = rejected == 0 ? "client telemetry: " + refused : firstError;
          rejected += Math.max(1, payload.points.size());
        }
      }
    }
    stats.pointsReceived.addAndGet(points.size());
    rejectedByReason.forEach(stats::pointsRejected);
    return partialSuccess(json, rejected, firstError, "rejectedDataPoints");
  }

  /** A request's forwarded client payloads, by client instance id, in request order. */
  private static final class ClientPayloads {
    final Map<Object, Payload> byInstance = new java.util.LinkedHashMap<>();

    void add(Map<String, Object> resource, OtlpMetricPoint p) {
      Object id = resource.get(ClientTelemetryAttributes.CLIENT_INSTANCE_ID.name());
      Payload payload = byInstance.get(id);
      if (payload == null) {
        // Each of a client's ResourceMetrics carries the same resource: the first is kept, never
        // merged with the others (a hostile request of many resources must not cost their square).
        payload = new Payload(resource);
        byInstance.put(id, payload);
      }
      if (p.type != OtlpMetricPoint.Type.HISTOGRAM) {
        payload.points.add(new ClientTelemetryReader.Point(p.name, p.attributes, p.value));
      }
    }

    static final class Payload {
      final Map<String, Object> resource;
      final List<ClientTelemetryReader.Point> points = new ArrayList<>();

      Payload(Map<String, Object> resource) {
        this.resource = resource;
      }
    }
  }

  private void offerClockSync(Map<String, Object> resource) {
    ClockSync sync = SpanMapper.clockSync(resource);
    if (sync != null) {
      correlator.offerClockSync(sync.instanceId(), sync.offsetNanos(), sync.uncertaintyNanos());
    }
  }

  // {reason, message}, or null when the point was taken (or ignored as not klat's).
  private String[] accept(OtlpMetricPoint p, AgentMetrics.TakeOver takeOver) {
    Exposition.Type type;
    if (p.type == OtlpMetricPoint.Type.HISTOGRAM) {
      type = Exposition.Type.HISTOGRAM;
    } else if (p.type == OtlpMetricPoint.Type.SUM && p.monotonic) {
      type = Exposition.Type.COUNTER;
    } else {
      type = Exposition.Type.GAUGE;
    }
    boolean accumulates = type != Exposition.Type.GAUGE;
    if (accumulates
        && p.temporality != OtlpMetricPoint.TEMPORALITY_DELTA
        && p.temporality != OtlpMetricPoint.TEMPORALITY_CUMULATIVE) {
      return new String[] {REASON_MALFORMED, p.name + ": aggregation temporality unspecified"};
    }
    if (type == Exposition.Type.HISTOGRAM && p.bucketCounts.length != p.bounds.length + 1) {
      if (p.bucketCounts.length == 0) {
        return null; // a count-only histogram carries nothing to merge per bucket
      }
      return new String[] {
        REASON_MALFORMED,
        p.name + ": " + p.bucketCounts.length + " bucket counts for " + p.bounds.length + " bounds"
      };
    }
    Object instance = p.resource.get(SpanAttributes.INSTANCE_ID.name());
    if (instance == null) {
      instance = p.resource.get("service.instance.id");
    }
    String[] refused = labelProblem(p, instance == null ? "" : String.valueOf(instance));
    if (refused != null) {
      return refused;
    }
    agentMetrics.accept(
        new AgentMetrics.Point(
            p.name,
            type,
            p.temporality == OtlpMetricPoint.TEMPORALITY_DELTA,
            p.attributes,
            instance == null ? "unknown" : String.valueOf(instance),
            p.startNanos,
            p.timeNanos,
            p.value,
            p.bounds,
            p.bucketCounts,
            p.sum),
        takeOver);
    return null;
  }

  /**
   * Checks the strings of a klat metric's point the merger would keep (its labels and instance)
   * where they enter; other metrics are ignored by the merger and keep nothing.
   */
  private static String[] labelProblem(OtlpMetricPoint p, String instance) {
    if (!KLAT_METRICS.contains(p.name)) {
      return null;
    }
    String problem = WireNames.nameProblem("instance id", instance);
    if (problem != null) {
      return new String[] {WireNames.REASON_NAME, p.name + ": " + problem};
    }
    String topic = p.attributes.get(TagKeys.TOPIC);
    problem = topic == null ? null : WireNames.topicProblem(topic);
    if (problem != null) {
      return new String[] {WireNames.REASON_TOPIC, p.name + ": " + problem};
    }
    for (String key : NAME_LABELS) {
      String value = p.attributes.get(key);
      problem = value == null ? null : WireNames.nameProblem(key, value);
      if (problem != null) {
        return new String[] {WireNames.REASON_NAME, p.name + ": " + problem};
      }
    }
    String partition = p.attributes.get(TagKeys.PARTITION);
    if (partition != null && !isPartition(partition)) {
      return new String[] {
        WireNames.REASON_LABEL, p.name + ": partition is not a partition number"
      };
    }
    return null;
  }

  // 0 to Integer.MAX_VALUE in decimal, as Kafka numbers partitions.
  private static boolean isPartition(String s) {
    if (s.isEmpty() || s.length() > 10) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return Long.parseLong(s) <= Integer.MAX_VALUE;
  }

  private static byte[] partialSuccess(
      boolean json, long rejected, String message, String jsonField) {
    if (rejected == 0) {
      return json ? "{}".getBytes(StandardCharsets.UTF_8) : new byte[0];
    }
    if (json) {
      return ("{\"partialSuccess\":{\""
              + jsonField
              + "\":\""
              + rejected
              + "\",\"errorMessage\":\""
              + jsonEscape(message)
              + "\"}}")
          .getBytes(StandardCharsets.UTF_8);
    }
    // Export*ServiceResponse.partial_success = 1 { rejected_* = 1; error_message = 2; }
    return new ProtoWriter()
        .messageField(1, new ProtoWriter().varintField(1, rejected).stringField(2, message))
        .toByteArray();
  }

  static String jsonEscape(String s) {
    return new String(JsonStringEncoder.getInstance().quoteAsString(s));
  }
}
