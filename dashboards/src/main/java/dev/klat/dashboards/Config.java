package dev.klat.dashboards;

import dev.klat.model.Capture;
import dev.klat.model.MetricDef;
import dev.klat.model.TagKeys;

/**
 * What a user tunes: datasource uids, selectors and the SLO. The rules in {@code prometheus/} use
 * the same threshold and objective; {@code RulesConsistencyTest} checks that they agree.
 */
public final class Config {

  /** The Prometheus datasource uid; deploy/grafana provisions a datasource with it. */
  public static final String PROMETHEUS_UID = "klat-prometheus";

  /** The Tempo datasource uid; exemplars link to it by this uid. */
  public static final String TEMPO_UID = "klat-tempo";

  /**
   * The end-to-end latency a record may take under the SLO, in seconds. It must be an upper bound
   * of one of the collector's histogram buckets (eight per octave; this one is 30 * 2^24 ns),
   * because the SLI counts the records in the buckets up to it.
   */
  public static final String SLO_THRESHOLD_SECONDS = "0.50331648";

  /** The SLO: 99% of records within {@link #SLO_THRESHOLD_SECONDS}, that is p99 under it. */
  public static final double SLO_OBJECTIVE = 0.99;

  /** Grafana's own variable for a rate window that fits the scrape interval. */
  static final String RATE_INTERVAL = "$__rate_interval";

  /** Matchers on the dashboards' topic and consumer group variables. */
  static final String TOPIC_GROUP = "topic=~\"$topic\", group=~\"$group\"";

  /**
   * The matcher of sampled records' segments: tail records (capture="tail") are slow by selection
   * and would skew every quantile and mean.
   */
  static final String SAMPLED = TagKeys.CAPTURE + "=\"" + Capture.SAMPLED.id() + "\"";

  /** {@link #TOPIC_GROUP} and {@link #SAMPLED}. */
  static final String SAMPLED_TOPIC_GROUP = TOPIC_GROUP + ", " + SAMPLED;

  /**
   * The matcher of the agents' every-record end-to-end series: the collector serves the records
   * seen through OpenTelemetry instrumentations (section 10 of the latency model) in the same
   * metric with {@code capture="opentelemetry"}, and a klat consumer reading records an
   * instrumented producer wrote has both.
   */
  static final String AGENTS = TagKeys.CAPTURE + "!=\"" + Capture.OPENTELEMETRY.id() + "\"";

  /** {@link #TOPIC_GROUP} and {@link #AGENTS}. */
  static final String AGENTS_TOPIC_GROUP = TOPIC_GROUP + ", " + AGENTS;

  /** The matcher of records seen through OpenTelemetry instrumentations. */
  static final String OPENTELEMETRY = TagKeys.CAPTURE + "=\"" + Capture.OPENTELEMETRY.id() + "\"";

  /** {@link #TOPIC_GROUP} and {@link #OPENTELEMETRY}. */
  static final String OPENTELEMETRY_TOPIC_GROUP = TOPIC_GROUP + ", " + OPENTELEMETRY;

  static final String E2E = MetricDef.E2E_LATENCY.prometheusName();
  static final String SEGMENT = MetricDef.SEGMENT_LATENCY.prometheusName();
  static final String DIAGNOSIS = MetricDef.DIAGNOSIS_TAIL_SHARE.prometheusName();
  static final String PIPELINE = MetricDef.PIPELINE_LATENCY.prometheusName();
  static final String PIPELINE_HOP = MetricDef.PIPELINE_HOP_LATENCY.prometheusName();

  /**
   * The prefix of the clients' own figures (KIP-714): gauges of each client's avg and max over its
   * metric window, which have series only while a client pushes through a broker running klat's
   * forwarder.
   */
  static final String CLIENT_TELEMETRY = "klat_client_telemetry_";

  /** Matcher on the pipelines dashboard's pipeline variable. */
  static final String PIPELINE_SELECTED = TagKeys.PIPELINE + "=~\"$pipeline\"";

  private Config() {}
}
