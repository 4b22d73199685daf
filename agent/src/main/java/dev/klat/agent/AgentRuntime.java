package dev.klat.agent;

import dev.klat.agent.config.AgentConfig;
import dev.klat.agent.config.TopicFilter;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.Telemetry;
import dev.klat.agent.link.ForwardedLinks;
import dev.klat.agent.metrics.MetricsRegistry;
import dev.klat.agent.micrometer.MicrometerBridge;
import dev.klat.agent.tail.TailAdmission;
import dev.klat.agent.tail.TailThresholds;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.MetricDef;

/**
 * What the hooks need at run time, set once by {@link KlatAgent} before any class is transformed.
 * Hooks read it through {@link #get()}; while it is null (agent disabled or not started) every hook
 * returns at once.
 */
public final class AgentRuntime {

  private static volatile AgentRuntime current;

  /** Identifies this agent instance (its clock domain) in headers and spans; never 0. */
  public final long instanceId;

  public final double samplingProbability;
  public final double maxSampledPerSecond;
  public final boolean headersEnabled;

  /** {@code klat.micrometer.enabled}: see {@link #micrometer(Object)}. */
  public final boolean micrometerEnabled;

  public final TopicFilter topicFilter;
  public final AgentLog log;

  /** The clocks every hook reads: {@link TimeSource#SYSTEM} but in tests. */
  public final TimeSource time;

  /**
   * {@code klat.tail.enabled}: when false, {@link #tailThresholds} hands out thresholds that flag
   * nothing.
   */
  public final boolean tailEnabled;

  /** {@code klat.tail.max-per-second}: what each {@link #newTailAdmission()} allows a second. */
  public final int tailMaxPerSecond;

  /**
   * The tail thresholds of every key of this agent; the {@code auto} ones move on the exporter
   * thread about once a second.
   */
  public final TailThresholds tailThresholds;

  private final Telemetry telemetry;

  /**
   * Links of consumed records by the upstream span id of their traceparent, for applications that
   * forward it (Kafka Streams); evictions counted in {@code klat.agent.link.forwarded.evicted}.
   */
  public final ForwardedLinks forwardedLinks;

  AgentRuntime(
      long instanceId, AgentConfig config, AgentLog log, Telemetry telemetry, TimeSource time) {
    this.instanceId = instanceId;
    this.samplingProbability = config.samplingProbability();
    this.maxSampledPerSecond = config.samplingMaxPerSecond();
    this.headersEnabled = config.headersEnabled();
    this.micrometerEnabled = config.micrometerEnabled();
    this.topicFilter = config.topicFilter();
    this.log = log;
    this.telemetry = telemetry;
    this.time = time;
    this.tailEnabled = config.tailEnabled();
    this.tailMaxPerSecond = config.tailMaxPerSecond();
    this.tailThresholds =
        new TailThresholds(
            config.tailEnabled(), config.tailProducerThreshold(), config.tailConsumerThreshold());
    telemetry.runEverySecond(new RefreshThresholds(tailThresholds, time));
    this.forwardedLinks =
        new ForwardedLinks(telemetry.metrics().counter(MetricDef.AGENT_LINK_FORWARDED_EVICTED));
  }

  /** The running agent, or null when hooks must do nothing. */
  public static AgentRuntime get() {
    return current;
  }

  static void set(AgentRuntime runtime) {
    current = runtime;
  }

  /**
   * The application's Micrometer as a Kafka client's class loader sees it, for its instruments to
   * register timers in; called once per producer or consumer.
   *
   * @param client the instrumented {@code KafkaProducer} or {@code KafkaConsumer}
   * @return null when {@code klat.micrometer.enabled} is false or Micrometer is unavailable
   */
  public MicrometerBridge micrometer(Object client) {
    if (!micrometerEnabled) {
      return null;
    }
    MicrometerBridge bridge = MicrometerBridge.forClient(client, log);
    return bridge.available() ? bridge : null;
  }

  public MetricsRegistry metrics() {
    return telemetry.metrics();
  }

  /** Hands a finished span to the exporter; never blocks, drops when the queue is full. */
  public void export(SpanRecord span) {
    telemetry.offer(span);
  }

  /**
   * Hands a finished tail span to the exporter, into the tail spans' own share of the queue, so
   * that it never takes a sampled span's place; never blocks, drops (counted, {@code queue_full})
   * when that share is full.
   */
  public void exportTail(SpanRecord span) {
    telemetry.offerTail(span);
  }

  /**
   * A new fair cap for one client (one per producer or consumer): {@link #tailMaxPerSecond} tail
   * spans a second, the records not kept counted in {@code
   * klat.agent.tail.spans.dropped{reason=cap}}.
   */
  public TailAdmission newTailAdmission() {
    return new TailAdmission(
        tailMaxPerSecond, metrics().counter(MetricDef.AGENT_TAIL_SPANS_DROPPED, "cap"), null);
  }

  /** Moves the tail thresholds' windows; the exporter thread's once-a-second task. */
  private static final class RefreshThresholds implements Runnable {
    private final TailThresholds thresholds;
    private final TimeSource time;

    RefreshThresholds(TailThresholds thresholds, TimeSource time) {
      this.thresholds = thresholds;
      this.time = time;
    }

    @Override
    public void run() {
      thresholds.refresh(time.nanoTime());
    }
  }
}
