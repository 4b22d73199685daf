package dev.klat.model;

/**
 * The tag (Prometheus label) keys of klat's metrics. Every key of every {@link MetricDef} is one of
 * these constants. Tags are low-cardinality: the partition appears only on the consumer lag gauge.
 */
public final class TagKeys {

  /** {@value}: the topic name. */
  public static final String TOPIC = "topic";

  /** {@value}: the consumer group. */
  public static final String GROUP = "group";

  /** {@value}: the Kafka {@code client.id} of a producer or consumer. */
  public static final String CLIENT_ID = "client_id";

  /** {@value}: a {@link Segment#id()}. */
  public static final String SEGMENT = "segment";

  /** How a breakdown was captured: a {@link Capture#id()}. */
  public static final String CAPTURE = "capture";

  /** {@value}: a {@link Quality#id()}. */
  public static final String QUALITY = "quality";

  /** {@value}: an {@link EstimationMethod#id()}. */
  public static final String METHOD = "method";

  /** {@value}: a partition number. */
  public static final String PARTITION = "partition";

  /** {@value}: why something was rejected, for example a {@link TimingHeader.DecodeError#id()}. */
  public static final String REASON = "reason";

  /** {@value}: a broker's node id. */
  public static final String BROKER = "broker";

  /** {@value}: a {@link TimePoint#symbol()}. */
  public static final String INSTANT = "instant";

  /** {@value}: the host whose clock an offset is measured from. */
  public static final String FROM_HOST = "from_host";

  /** {@value}: the host whose clock an offset is measured to. */
  public static final String TO_HOST = "to_host";

  /**
   * {@value}: one of the collector's listeners ({@code otlp-http}, {@code otlp-grpc}, {@code
   * admin}).
   */
  public static final String LISTENER = "listener";

  /** {@value}: how a check came out ({@code accepted}, {@code missing}, ...). */
  public static final String RESULT = "result";

  /** {@value}: the name of a bearer token in its tokens file (never the token). */
  public static final String TOKEN = "token";

  /** {@value}: the key of a setting, for example {@code tls.cert-file}. */
  public static final String SETTING = "setting";

  private TagKeys() {}

  /**
   * The knob or cause a diagnosis finding names ({@code linger.ms}, {@code broker 3 follower
   * fetch}).
   */
  public static final String KNOB = "knob";

  /** A pipeline's name (section 9 of the latency model): {@code firstTopic->lastGroup}, or set. */
  public static final String PIPELINE = "pipeline";

  /** A hop of a pipeline, by its index from 1. */
  public static final String HOP = "hop";

  /**
   * What the collector made of a span from an OpenTelemetry Kafka instrumentation ({@code
   * producer}, {@code consumer}, {@code batch}, ...): a fixed set of words.
   */
  public static final String OUTCOME = "outcome";

  /**
   * What ended an earlier delivery of a record to a share group (section 11 of the latency model):
   * {@code lock-timeout}, {@code release}, {@code reject}, {@code renew} or {@code unknown}.
   */
  public static final String CAUSE = "cause";
}
