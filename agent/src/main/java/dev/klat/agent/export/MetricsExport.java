package dev.klat.agent.export;

import java.util.List;

/**
 * One export of the metrics: the registry's cumulative series and the pipeline's health, in
 * requests of at most {@value #MAX_POINTS_PER_REQUEST} data points. Exporter thread only.
 */
final class MetricsExport {

  /** At most this many data points per metrics request, about 1.8 MB of histograms. */
  static final int MAX_POINTS_PER_REQUEST = 256;

  private final MetricsRegistry registry;
  private final ExportCounters counters;
  private final OtlpHttpSender sender;
  private final Backoff backoff;
  private final RateLimitedLog log;
  private final String endpoint;
  private final TimeSource time;
  private final long startEpochNanos;

  MetricsExport(
      MetricsRegistry registry,
      ExportCounters counters,
      OtlpHttpSender sender,
      Backoff backoff,
      RateLimitedLog log,
      String endpoint,
      TimeSource time) {
    this.registry = registry;
    this.counters = counters;
    this.sender = sender;
    this.backoff = backoff;
    this.log = log;
    this.endpoint = endpoint;
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
    families.addAll(counters.families(registry.overflowCount(), startEpochNanos));
    long timeEpochNanos = time.epochNanos();
    for (List<MetricFamily> chunk : OtlpEncoder.chunk(families, MAX_POINTS_PER_REQUEST)) {
      byte[] body = encoder.encodeMetrics(chunk, timeEpochNanos);
      if (body == null) {
        continue;
      }
      OtlpHttpSender.Result result =
          sender.sendMetrics(body, connectTimeoutMillis, readTimeoutMillis);
      if (result.outcome == OtlpHttpSender.Outcome.SUCCESS) {
        backoff.reset();
        continue;
      }
      counters.exportFailed();
      if (result.outcome == OtlpHttpSender.Outcome.RETRYABLE) {
        log.warn(
            RateLimitedLog.Kind.EXPORT_RETRYABLE,
            "sending metrics to " + endpoint + " failed, will retry: " + result.detail);
        return result;
      }
      log.warn(
          RateLimitedLog.Kind.EXPORT_REJECTED,
          "metrics rejected by " + endpoint + ", dropped: " + result.detail);
    }
    return null;
  }
}
