package dev.klat.probe;

import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.otlp.Backoff;
import dev.klat.agentcore.otlp.ClockSync;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.agentcore.otlp.OtlpHttpSender.Outcome;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.TopicPartition;

/**
 * The probe's one thread: every {@value #DRAIN_INTERVAL_MILLIS} ms it drains the {@link EventRing}
 * into {@link PartitionTimelines}, so the ring stays short, and every export interval it sends what
 * the timelines hold to the collector, one OTLP logs request at a time. A request that fails is not
 * retried: its ranges are a moment's instants, and the ones after it matter more; it is counted,
 * and sending pauses for the backoff while draining goes on. Nothing here can reach a broker
 * thread.
 */
final class ProbeExporter implements Runnable {

  static final long DRAIN_INTERVAL_MILLIS = 20;

  // A request is cut at this size, so that a broker leading thousands of busy partitions sends
  // several bodies of reasonable size rather than one the collector refuses.
  static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;

  // An idle broker reports its coverage once a second, not at every export interval.
  static final long IDLE_REPORT_INTERVAL_NANOS = 1_000_000_000L;

  private final EventRing ring;
  private final PartitionTimelines timelines;
  private final LogsEncoder encoder;
  private final OtlpHttpSender sender;
  private final ProbeSettings settings;
  private final AgentLog log;
  // At most 5 s, not the agents' 30 s: ranges are dropped while sending pauses, so a short pause
  // brings exact broker instants back soon after the collector returns (a restart, or a collector
  // started after the brokers), for one connection attempt per broker every 5 s.
  static final long MAX_BACKOFF_MILLIS = 5_000;

  private final Backoff backoff =
      new Backoff(() -> ThreadLocalRandom.current().nextDouble(), MAX_BACKOFF_MILLIS);
  private long pausedUntilNanos;
  private long failedRequests;
  private long sentRequests;
  private long coveredUntilMicros;
  private long ringDropped;
  private long lastSentNanos = System.nanoTime() - IDLE_REPORT_INTERVAL_NANOS;
  // Whether a request is being written (begun, not yet sent).
  private boolean started;
  private volatile boolean stopped;

  ProbeExporter(
      EventRing ring,
      PartitionTimelines timelines,
      LogsEncoder encoder,
      OtlpHttpSender sender,
      ProbeSettings settings,
      AgentLog log) {
    this.ring = ring;
    this.timelines = timelines;
    this.encoder = encoder;
    this.sender = sender;
    this.settings = settings;
    this.log = log;
  }

  @Override
  public void run() {
    long nextExport = System.nanoTime();
    while (!stopped) {
      try {
        Thread.sleep(DRAIN_INTERVAL_MILLIS);
        drain();
        long now = System.nanoTime();
        if (now - nextExport >= 0) {
          nextExport = now + settings.exportIntervalMillis * 1_000_000L;
          export(now);
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable t) {
        log.warnThrottled("probe-export", "broker probe: export failed: " + t);
      }
    }
  }

  void stop() {
    stopped = true;
  }

  /** Moves the ring's events into the timelines; ranges of a term that ended go out first. */
  void drain() {
    // Read before draining: every event whose time is before it was offered before it (a hook
    // reads the clock and offers at once), so it is in this drain or an earlier one.
    coveredUntilMicros = ProbeClock.epochNanos() / 1000;
    long dropped = ring.dropped();
    if (dropped != ringDropped) {
      ringDropped = dropped;
      timelines.forgetHighWatermarks();
    }
    timelines.sinkForEpochChanges(this::addRanges);
    ring.drain(timelines);
  }

  /** Sends every partition's pending ranges. */
  void export(long nowNanos) {
    if (nowNanos - pausedUntilNanos < 0) {
      // Paused after a failure: the ranges are dropped, not queued, and counted.
      timelines.flushAll(
          (tp, epoch, appends, commits, stables, stableFrom) -> discard(appends, commits, stables));
      return;
    }
    timelines.flushAll(this::addRanges);
    if (started) {
      send();
    } else if (PartitionHooks.brokerId() >= 0
        && nowNanos - lastSentNanos >= IDLE_REPORT_INTERVAL_NANOS) {
      // Nothing pending: now and then still say how far this broker is covered, so that the
      // collector knows the probe is alive and that every earlier event arrived.
      begin();
      send();
    }
  }

  private void addRanges(
      Object topicPartition,
      int epoch,
      RangeList appends,
      RangeList commits,
      RangeList stables,
      long stableFrom) {
    if (!started) {
      begin();
    }
    TopicPartition tp = (TopicPartition) topicPartition;
    encoder.add(
        tp.topic(),
        tp.partition(),
        epoch,
        appends,
        commits,
        stables,
        stableFrom,
        ProbeClock.epochNanos());
    if (encoder.size() >= MAX_REQUEST_BYTES) {
      send();
    }
  }

  private static void discard(RangeList appends, RangeList commits, RangeList stables) {
    appends.drainPacked();
    commits.drainPacked();
    if (stables != null) {
      stables.drainPacked();
    }
  }

  private void begin() {
    ClockSync clock = sender.clockSync();
    encoder.begin(
        PartitionHooks.brokerId(),
        coveredUntilMicros,
        ring.dropped() + timelines.dropped(),
        clock.hasSample() ? clock.offsetNanos() : Long.MIN_VALUE,
        clock.hasSample() ? clock.uncertaintyNanos() : 0);
    started = true;
  }

  private void send() {
    started = false;
    lastSentNanos = System.nanoTime();
    byte[] body = encoder.finish();
    OtlpHttpSender.Result result =
        sender.sendLogs(body, settings.timeoutMillis, settings.timeoutMillis);
    if (result.outcome == Outcome.SUCCESS) {
      sentRequests++;
      backoff.reset();
      return;
    }
    failedRequests++;
    if (result.outcome == Outcome.RETRYABLE) {
      pausedUntilNanos =
          System.nanoTime() + backoff.nextDelayMillis(result.retryAfterMillis) * 1_000_000L;
    }
    report(result);
  }

  /**
   * Logs a failed request: a token or certificate to fix once, with what to check (the sender
   * counts every failure by reason); anything else at most once a minute.
   */
  void report(OtlpHttpSender.Result result) {
    if (result.reason != null && result.reason.explained()) {
      if (result.advice != null) {
        log.warnOnce(
            "probe-send." + result.reason.id,
            "broker probe: "
                + result.advice
                + "; the broker's events are dropped and counted, and the broker is not affected");
      }
      return;
    }
    log.warnThrottled(
        "probe-send",
        "broker probe: the collector at "
            + sender.endpoint()
            + " did not take the broker's events ("
            + result
            + "); they are dropped and counted, and the broker is not affected");
  }

  long sentRequests() {
    return sentRequests;
  }

  long failedRequests() {
    return failedRequests;
  }
}
