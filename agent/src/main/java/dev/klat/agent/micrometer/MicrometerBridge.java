package dev.klat.agent.micrometer;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.model.MetricDef;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The application's own Micrometer, as one Kafka client's class loader sees it: registers klat's
 * latency histograms as Micrometer {@code Timer}s in {@code Metrics.globalRegistry}, where Spring
 * Boot adds its registries (so they appear in {@code /actuator/prometheus}).
 *
 * <p>Reflection only: the agent must not ship Micrometer (the application's would clash with it or
 * be shadowed), and its classes are in the application's loader, not the agent's. Methods are
 * resolved once per bridge and called once per timer at registration; the per-record path is one
 * bound {@link MethodHandle} call in {@link MicrometerTimer}.
 *
 * <p>Failure is never the application's problem: a loader without Micrometer gives an unavailable
 * bridge (one log line); a registration or recording that throws is logged once and makes this
 * bridge step aside for good (no more timers, no more recording); klat's own histograms go on.
 * Thread-safe.
 */
public final class MicrometerBridge {

  static final String METRICS_CLASS = "io.micrometer.core.instrument.Metrics";
  private static final String TIMER_CLASS = "io.micrometer.core.instrument.Timer";
  private static final String TIMER_BUILDER_CLASS = "io.micrometer.core.instrument.Timer$Builder";
  private static final String METER_REGISTRY_CLASS = "io.micrometer.core.instrument.MeterRegistry";

  private final AgentLog log;
  // All null when Micrometer is not reachable from the loader.
  private final Object globalRegistry;
  private final Method builder;
  private final Method tags;
  private final Method description;
  private final Method publishPercentileHistogram;
  private final Method register;
  // Timer.record(long, TimeUnit), unbound: (Timer, long, TimeUnit)void.
  private final MethodHandle record;
  private volatile boolean steppedAside;

  private MicrometerBridge(AgentLog log, Resolved resolved) {
    this.log = log;
    this.globalRegistry = resolved == null ? null : resolved.globalRegistry;
    this.builder = resolved == null ? null : resolved.builder;
    this.tags = resolved == null ? null : resolved.tags;
    this.description = resolved == null ? null : resolved.description;
    this.publishPercentileHistogram = resolved == null ? null : resolved.publishPercentileHistogram;
    this.register = resolved == null ? null : resolved.register;
    this.record = resolved == null ? null : resolved.record;
    this.steppedAside = resolved == null;
  }

  /**
   * Returns the bridge to the Micrometer that the loader of an instrumented Kafka client sees.
   * Called once per producer or consumer, never per record; never throws.
   *
   * @param client the instrumented {@code KafkaProducer} or {@code KafkaConsumer}
   * @param log where to say, once, that Micrometer is missing or failed
   * @return a bridge, possibly {@linkplain #available() unavailable}
   */
  public static MicrometerBridge forClient(Object client, AgentLog log) {
    ClassLoader loader = null;
    try {
      loader = client == null ? null : client.getClass().getClassLoader();
    } catch (Throwable t) {
      // A security manager refusing getClassLoader: treated as no loader below.
    }
    return forLoader(loader == null ? ClassLoader.getSystemClassLoader() : loader, log);
  }

  /**
   * Returns the bridge to the Micrometer {@code loader} sees; never throws.
   *
   * @param loader the class loader to find {@code io.micrometer.core.instrument.Metrics} in
   * @param log where to say, once, that Micrometer is missing or failed
   * @return a bridge, possibly {@linkplain #available() unavailable}
   */
  public static MicrometerBridge forLoader(ClassLoader loader, AgentLog log) {
    Resolved resolved = null;
    try {
      resolved = Resolved.from(loader);
    } catch (ClassNotFoundException | LinkageError e) {
      log.warnOnce(
          "micrometer.unavailable",
          "klat.micrometer.enabled is true but the application has no Micrometer ("
              + METRICS_CLASS
              + " not found); klat's histograms are exported to its collector only");
    } catch (Throwable t) {
      log.warnOnce(
          "micrometer.unusable",
          "klat.micrometer.enabled is true but the application's Micrometer is unusable ("
              + t
              + "); klat's histograms are exported to its collector only");
    }
    return new MicrometerBridge(log, resolved);
  }

  /**
   * Returns whether timers can be registered: Micrometer was found and nothing has failed yet.
   *
   * @return false once this bridge has stepped aside
   */
  public boolean available() {
    return !steppedAside;
  }

  /**
   * Registers, or finds when already registered, the timer of a latency histogram in the global
   * registry, with the metric's name, description and tag keys. Called once per instrument, never
   * per record; never throws.
   *
   * @param def a latency histogram of {@code model/}, such as {@link MetricDef#PRODUCER_LATENCY}
   * @param tagValues one value per {@link MetricDef#tagKeys()}, in that order; null stands for ""
   * @return the timer, or null when the bridge is unavailable or the registration failed
   */
  public MicrometerTimer timer(MetricDef def, String... tagValues) {
    if (steppedAside) {
      return null;
    }
    try {
      List<String> keys = def.tagKeys();
      String[] keyValues = new String[2 * keys.size()];
      for (int i = 0; i < keys.size(); i++) {
        keyValues[2 * i] = keys.get(i);
        String value = i < tagValues.length ? tagValues[i] : null;
        keyValues[2 * i + 1] = value == null ? "" : value;
      }
      // The timer's base unit is seconds, so Micrometer's Prometheus registry prints the name
      // klat.producer.latency as klat_producer_latency_seconds, MetricDef.prometheusName().
      Object b = builder.invoke(null, def.name());
      b = tags.invoke(b, (Object) keyValues);
      b = description.invoke(b, def.description());
      b = publishPercentileHistogram.invoke(b);
      Object timer = register.invoke(b, globalRegistry);
      return new MicrometerTimer(record.bindTo(timer), this);
    } catch (Throwable t) {
      stepAside(t instanceof InvocationTargetException ? t.getCause() : t);
      return null;
    }
  }

  /** Whether a timer of this bridge must stop recording: read by {@link MicrometerTimer}. */
  boolean steppedAside() {
    return steppedAside;
  }

  /** Stops using Micrometer after a failure, saying so once. */
  void stepAside(Throwable failure) {
    steppedAside = true;
    log.warnOnce(
        "micrometer.failed",
        "the application's Micrometer failed ("
            + failure
            + "); klat stops recording into it and keeps exporting to its collector");
  }

  /** Micrometer's global registry and the methods the bridge calls, found in one loader. */
  private static final class Resolved {
    Object globalRegistry;
    Method builder;
    Method tags;
    Method description;
    Method publishPercentileHistogram;
    Method register;
    MethodHandle record;

    static Resolved from(ClassLoader loader) throws ReflectiveOperationException {
      // initialize=true: reading Metrics.globalRegistry initializes Metrics anyway.
      Class<?> metrics = Class.forName(METRICS_CLASS, true, loader);
      Class<?> timer = Class.forName(TIMER_CLASS, false, loader);
      Class<?> timerBuilder = Class.forName(TIMER_BUILDER_CLASS, false, loader);
      Class<?> meterRegistry = Class.forName(METER_REGISTRY_CLASS, false, loader);
      Resolved r = new Resolved();
      r.globalRegistry = metrics.getField("globalRegistry").get(null);
      if (r.globalRegistry == null) {
        throw new IllegalStateException("Metrics.globalRegistry is null");
      }
      r.builder = timer.getMethod("builder", String.class);
      r.tags = timerBuilder.getMethod("tags", String[].class);
      r.description = timerBuilder.getMethod("description", String.class);
      r.publishPercentileHistogram = timerBuilder.getMethod("publishPercentileHistogram");
      r.register = timerBuilder.getMethod("register", meterRegistry);
      r.record =
          MethodHandles.publicLookup()
              .findVirtual(
                  timer, "record", MethodType.methodType(void.class, long.class, TimeUnit.class));
      return r;
    }
  }
}
