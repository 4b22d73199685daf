package dev.klat.model;

/**
 * The OTLP/HTTP paths klat's agents and probes post to and the collector serves, appended to a base
 * URL as the OTLP specification's default signal paths.
 */
public final class OtlpPaths {

  /** {@value}: spans. */
  public static final String TRACES = "/v1/traces";

  /** {@value}: metrics. */
  public static final String METRICS = "/v1/metrics";

  /** {@value}: log records, which carry the broker probe's data. */
  public static final String LOGS = "/v1/logs";

  private OtlpPaths() {}
}
