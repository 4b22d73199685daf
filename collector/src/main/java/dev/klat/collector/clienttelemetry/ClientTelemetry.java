package dev.klat.collector.clienttelemetry;

import dev.klat.collector.aggregate.Exposition;
import dev.klat.model.MetricDef;
import dev.klat.model.TagKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The clients' own figures (KIP-714) in one collector: takes each forwarded payload ({@link
 * #accept}), counts its outcome, keeps the latest of each instance in {@link ClientInstances}, and
 * answers {@code /api/clients}, {@code /api/breakdown}'s {@code clientTelemetry}, the diagnosis and
 * {@code /metrics}. Thread-safe.
 */
public final class ClientTelemetry {
  /**
   * Outcomes of a payload, as {@code klat_collector_client_telemetry_payloads_total} labels them.
   */
  public static final String ACCEPTED = "accepted";

  public static final String INVALID = "invalid";
  public static final String NO_KNOWN_METRICS = "no-known-metrics";

  /** {@code clients.max-instances}' default. */
  public static final int DEFAULT_MAX_INSTANCES = 1_000;

  /** {@code clients.max-bytes}' default: 16 MiB. */
  public static final long DEFAULT_MAX_BYTES = 16L << 20;

  /** {@code clients.stale-after}'s default: 15 min, three of KIP-714's default 5 min. */
  public static final long DEFAULT_STALE_NANOS = 15 * 60_000_000_000L;

  // The gauges of /metrics, in MetricDef order, and the figure each shows.
  private static final Map<MetricDef, ClientFigure> GAUGES =
      Map.of(
          MetricDef.CLIENT_TELEMETRY_RECORD_QUEUE_TIME, ClientFigure.RECORD_QUEUE_TIME,
          MetricDef.CLIENT_TELEMETRY_REQUEST_LATENCY, ClientFigure.REQUEST_LATENCY,
          MetricDef.CLIENT_TELEMETRY_FETCH_LATENCY, ClientFigure.FETCH_LATENCY,
          MetricDef.CLIENT_TELEMETRY_COMMIT_LATENCY, ClientFigure.COMMIT_LATENCY);

  private final ClientInstances instances;
  private final LongSupplier nanoTime;
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong invalid = new AtomicLong();
  private final AtomicLong noKnownMetrics = new AtomicLong();
  private final AtomicLong valuesRefused = new AtomicLong();
  private final AtomicLong topicsDropped = new AtomicLong();

  /** A registry with the defaults, on the system clock. */
  public ClientTelemetry() {
    this(DEFAULT_MAX_INSTANCES, DEFAULT_MAX_BYTES, DEFAULT_STALE_NANOS, System::nanoTime);
  }

  public ClientTelemetry(int maxInstances, long maxBytes, long staleNanos, LongSupplier nanoTime) {
    this.instances = new ClientInstances(maxInstances, maxBytes, staleNanos);
    this.nanoTime = nanoTime;
  }

  /**
   * Takes one client's payload: its resource and points.
   *
   * @return null when taken, else why not (for the sender's partial success)
   */
  public String accept(Map<String, Object> resource, List<ClientTelemetryReader.Point> points) {
    long now = nanoTime.getAsLong();
    ClientTelemetryReader.Read read = ClientTelemetryReader.read(resource, points, now);
    switch (read.outcome()) {
      case ACCEPTED -> accepted.incrementAndGet();
      case INVALID -> invalid.incrementAndGet();
      default -> noKnownMetrics.incrementAndGet();
    }
    valuesRefused.addAndGet(read.counts().valuesRefused());
    topicsDropped.addAndGet(read.counts().topicsDropped());
    if (read.instance() != null) {
      instances.put(read.instance(), now);
      return null;
    }
    return read.outcome().equals(INVALID) ? read.problem() : null;
  }

  /** The instances held, oldest push first. */
  public List<ClientInstance> instances() {
    return instances.snapshot(nanoTime.getAsLong());
  }

  /** The instances that serve a topic and group ({@link ClientInstance#serves}). */
  public List<ClientInstance> serving(String topic, String group) {
    List<ClientInstance> out = new ArrayList<>();
    for (ClientInstance i : instances()) {
      if (i.serves(topic, group)) {
        out.add(i);
      }
    }
    return out;
  }

  /** {@code GET /api/clients}, filtered as {@code /api/breakdown} filters (null: all). */
  public String clientsJson(String topic, String group) {
    long now = nanoTime.getAsLong();
    StringBuilder out = new StringBuilder(256);
    out.append("{\"clients\":");
    ClientTelemetryJson.array(out, serving(topic, group), now);
    out.append(",\"evicted\":").append(instances.evicted());
    out.append(",\"figures\":\"").append(ClientTelemetryJson.FIGURES_NOTE).append("\"}");
    return out.toString();
  }

  /** The {@code clientTelemetry} array of {@code /api/breakdown}. */
  public String breakdownJson(String topic, String group) {
    StringBuilder out = new StringBuilder(256);
    ClientTelemetryJson.array(out, serving(topic, group), nanoTime.getAsLong());
    return out.toString();
  }

  /**
   * The series of one of the client gauges of {@code /metrics}, or null when {@code def} is not
   * one: per client id, software, principal and role, and stat, in seconds; instances that share
   * the labels (replicas with one {@code client.id}) give one series holding the largest value.
   */
  public List<Exposition.Series> series(MetricDef def) {
    if (def == MetricDef.COLLECTOR_CLIENT_TELEMETRY_PAYLOADS) {
      List<Exposition.Series> out = new ArrayList<>();
      outcomes()
          .forEach((o, n) -> out.add(Exposition.Series.scalar(Map.of(TagKeys.OUTCOME, o), n)));
      return out;
    }
    if (def == MetricDef.COLLECTOR_CLIENT_TELEMETRY_EVICTIONS) {
      List<Exposition.Series> out = new ArrayList<>();
      instances
          .evictions()
          .forEach((r, n) -> out.add(Exposition.Series.scalar(Map.of(TagKeys.REASON, r), n)));
      return out;
    }
    if (def == MetricDef.COLLECTOR_CLIENT_TELEMETRY_INSTANCES) {
      return List.of(Exposition.Series.scalar(Map.of(), instances().size()));
    }
    ClientFigure figure = GAUGES.get(def);
    if (figure == null) {
      return null;
    }
    Map<Map<String, String>, Double> worst = new LinkedHashMap<>();
    for (ClientInstance i : instances()) {
      ClientInstance.Aggregate a = i.figure(figure);
      if (a == null) {
        continue;
      }
      if (a.hasAvg()) {
        worst.merge(labels(i, "avg"), a.avg() / 1e3, Math::max);
      }
      if (a.hasMax()) {
        worst.merge(labels(i, "max"), a.max() / 1e3, Math::max);
      }
    }
    List<Exposition.Series> out = new ArrayList<>(worst.size());
    worst.forEach((labels, seconds) -> out.add(Exposition.Series.scalar(labels, seconds)));
    return out;
  }

  private static Map<String, String> labels(ClientInstance i, String stat) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(TagKeys.CLIENT_ID, i.clientId());
    labels.put(TagKeys.CLIENT_SOFTWARE, i.software());
    labels.put(TagKeys.PRINCIPAL, i.principal());
    labels.put(TagKeys.ROLE, i.role());
    labels.put(TagKeys.STAT, stat);
    return labels;
  }

  /** Payloads by outcome. */
  public Map<String, Long> outcomes() {
    Map<String, Long> out = new LinkedHashMap<>();
    out.put(ACCEPTED, accepted.get());
    out.put(INVALID, invalid.get());
    out.put(NO_KNOWN_METRICS, noKnownMetrics.get());
    return out;
  }

  /** The counts of {@code /api/stats}. */
  public Map<String, Long> stats() {
    Map<String, Long> out = new LinkedHashMap<>();
    outcomes().forEach((o, n) -> out.put("clientTelemetryPayloads." + o, n));
    out.put("clientTelemetryValuesRefused", valuesRefused.get());
    out.put("clientTelemetryTopicsDropped", topicsDropped.get());
    out.put("clientTelemetryInstances", (long) instances().size());
    out.put("clientTelemetryEstimatedBytes", instances.estimatedBytes());
    instances.evictions().forEach((r, n) -> out.put("clientTelemetryEvictions." + r, n));
    return out;
  }
}
