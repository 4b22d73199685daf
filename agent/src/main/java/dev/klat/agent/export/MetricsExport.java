package dev.klat.agent.export;

import dev.klat.agent.metrics.MetricFamily;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.agentcore.otlp.ProtoWriter;
import java.util.List;

/**
 * One export of the metrics: the registry's cumulative series and the pipeline's health, in
 * requests of at most {@value #MAX_POINTS_PER_REQUEST} data points. Exporter thread only.
 */
final class MetricsExport {

  /** At most this many data points per metrics request, about 1.8 MB of histograms. */
  static final int MAX_POINTS_PER_REQUEST = 256;

  private final MetricsRegistry registry;
  private final ExportChannel channel;
  private final TimeSource time;
  private final long startEpochNanos;

  MetricsExport(MetricsRegistry registry, ExportChannel channel, TimeSource time) {
    this.registry = registry;
    this.channel = channel;
    this.time = time;
    this.startEpochNanos = time.epochNanos();
  }

  /**
   * Sends every chunk; a rejected chunk is dropped and the next one tried. A failed request is
   * never resent: the next export carries the same totals, newer.
   *
   * @return null when done, or the retryable failure that stopped the export (its remaining chunks
   *     are dropped too)
   */
  OtlpHttpSender.Result send(OtlpEncoder encoder, int connectTimeoutMillis, int readTimeoutMillis) {
    List<MetricFamily> families = registry.collect();
    families.addAll(
        channel.counters.families(
            registry.overflowCount(), startEpochNanos, channel.sender.failures()));
    long timeEpochNanos = time.epochNanos();
    for (List<MetricFamily> chunk : OtlpEncoder.chunk(families, MAX_POINTS_PER_REQUEST)) {
      ProtoWriter request = encoder.writeMetrics(chunk, timeEpochNanos);
      if (request == null) {
        continue;
      }
      byte[] payload = channel.sender.payload(request.array(), request.size());
      OtlpHttpSender.Result result =
          channel.sender.sendMetricsPayload(payload, connectTimeoutMillis, readTimeoutMillis);
      if (result.outcome == OtlpHttpSender.Outcome.SUCCESS) {
        channel.succeeded();
        continue;
      }
      channel.counters.exportFailed();
      if (channel.explain(result)) {
        if (result.outcome == OtlpHttpSender.Outcome.RETRYABLE) {
          return result;
        }
        continue;
      }
      if (result.outcome == OtlpHttpSender.Outcome.RETRYABLE) {
        channel.log.warn(
            RateLimitedLog.Kind.EXPORT_RETRYABLE,
            "sending metrics to "
                + channel.sender.endpoint()
                + " failed, will retry: "
                + result.detail);
        return result;
      }
      channel.log.warn(
          RateLimitedLog.Kind.EXPORT_REJECTED,
          "metrics rejected by " + channel.sender.endpoint() + ", dropped: " + result.detail);
    }
    return null;
  }
}
