package dev.klat.probe.telemetry;

import dev.klat.agentcore.auth.Secrets;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.otlp.Backoff;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.agentcore.otlp.OtlpHttpSender.Outcome;
import dev.klat.agentcore.otlp.ProtoWriter;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The forwarder's one thread: takes the queued pushes, makes each a {@code MetricsData} with the
 * broker's attributes ({@link PayloadDecoder}, {@link ResourceAugmenter}) and posts them, several
 * pushes to a request, to the collector's {@code /v1/metrics}. A request that fails is not retried
 * (the client pushes again within its interval, with fresher values) and its pushes are counted as
 * unsent; after a retryable failure, sending pauses for a backoff of 1 to 5 s, as the probe's
 * exporter does, and the pushes of the pause are dropped and counted, never held.
 */
final class ForwarderSender implements Runnable {

  /** A request is closed once it holds this many bytes. */
  static final int MAX_REQUEST_BYTES = 4 * 1024 * 1024;

  static final long IDLE_POLL_MILLIS = 20;
  static final long MAX_BACKOFF_MILLIS = 5_000;

  private final PushQueue queue;
  private final PayloadDecoder decoder;
  private final ResourceAugmenter augmenter;
  private final OtlpHttpSender sender;
  private final int timeoutMillis;
  private final ForwarderCounters counters;
  private final AgentLog log;
  private final ProtoWriter request = new ProtoWriter(64 * 1024);
  private final Backoff backoff =
      new Backoff(() -> ThreadLocalRandom.current().nextDouble(), MAX_BACKOFF_MILLIS);
  private long pausedUntilNanos = System.nanoTime();
  private int pushesInRequest;
  private volatile boolean stopped;

  ForwarderSender(
      PushQueue queue,
      PayloadDecoder decoder,
      ResourceAugmenter augmenter,
      OtlpHttpSender sender,
      int timeoutMillis,
      ForwarderCounters counters,
      AgentLog log) {
    this.queue = queue;
    this.decoder = decoder;
    this.augmenter = augmenter;
    this.sender = sender;
    this.timeoutMillis = timeoutMillis;
    this.counters = counters;
    this.log = log;
  }

  @Override
  public void run() {
    while (!stopped) {
      try {
        if (!sendOnce()) {
          Thread.sleep(IDLE_POLL_MILLIS);
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable t) {
        counters.droppedError.addAndGet(pushesInRequest);
        pushesInRequest = 0;
        log.warnThrottled("telemetry-forward", "client telemetry forwarder: " + t);
      }
    }
  }

  void stop() {
    stopped = true;
  }

  /**
   * Sends what the queue holds, up to one request's worth.
   *
   * @return false when the queue was empty
   */
  boolean sendOnce() {
    Push push = queue.poll();
    if (push == null) {
      return false;
    }
    if (System.nanoTime() - pausedUntilNanos < 0) {
      // Paused after a failure: what came meanwhile is dropped, counted, not held.
      counters.droppedUnsent.incrementAndGet();
      return true;
    }
    request.reset();
    pushesInRequest = 0;
    do {
      add(push);
    } while (request.size() < MAX_REQUEST_BYTES && (push = queue.poll()) != null);
    if (pushesInRequest > 0) {
      send();
    }
    return true;
  }

  private void add(Push push) {
    try {
      byte[] metricsData = decoder.decode(push.payload);
      if (augmenter.append(push, metricsData, request) == 0) {
        counters.droppedEmpty.incrementAndGet();
      } else {
        pushesInRequest++;
      }
    } catch (MalformedPayloadException e) {
      counters.droppedMalformed.incrementAndGet();
      // The client is named by what the broker knows of it; the message by what was wrong, never
      // by the bytes.
      log.warnThrottled(
          "telemetry-malformed",
          "client telemetry forwarder: dropped a push of client id "
              + push.clientId
              + " ("
              + push.softwareName
              + " "
              + push.softwareVersion
              + ", "
              + push.clientAddress
              + "): "
              + e.getMessage());
    }
  }

  private void send() {
    int pushes = pushesInRequest;
    pushesInRequest = 0;
    OtlpHttpSender.Result result =
        sender.sendMetricsPayload(
            sender.payload(request.array(), request.size()), timeoutMillis, timeoutMillis);
    if (result.outcome == Outcome.SUCCESS) {
      counters.forwarded.addAndGet(pushes);
      backoff.reset();
      return;
    }
    counters.droppedUnsent.addAndGet(pushes);
    if (result.outcome == Outcome.RETRYABLE) {
      pausedUntilNanos =
          System.nanoTime() + backoff.nextDelayMillis(result.retryAfterMillis) * 1_000_000L;
    }
    if (result.reason != null && result.reason.explained() && result.advice != null) {
      log.warnOnce(
          "telemetry-send." + result.reason.id,
          "client telemetry forwarder: "
              + result.advice
              + "; clients' pushed metrics are dropped and counted, the broker is not affected");
      return;
    }
    log.warnThrottled(
        "telemetry-send",
        "client telemetry forwarder: the collector at "
            + Secrets.redactUserInfo(sender.endpoint())
            + " did not take clients' pushed metrics ("
            + result
            + "); they are dropped and counted ("
            + counters
            + "), the broker is not affected");
  }
}
