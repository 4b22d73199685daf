package dev.klat.agent.export;

import dev.klat.agent.metrics.Counter;
import dev.klat.agentcore.otlp.OtlpHttpSender;
import dev.klat.agentcore.otlp.ProtoWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Span export: takes a batch from the queue, encodes it once, and keeps it for retries until it is
 * accepted, rejected, or tried {@value #MAX_ATTEMPTS_PER_BATCH} times. Exporter thread only.
 */
final class SpanExport {

  /** How many times a batch of spans is sent before it is dropped, {@value}. */
  static final int MAX_ATTEMPTS_PER_BATCH = 5;

  private static final int INITIAL_PAYLOAD_BYTES = 64 * 1024;
  // A payload buffer that one large request grew past this is not kept for the next.
  private static final int KEEP_PAYLOAD_BYTES = 1 << 20;

  private final SpanQueue queue;
  private final SpanQueue tailQueue;
  private final Counter tailExported;
  private final Counter tailFailed;
  private final ExportChannel channel;
  private final int maxSpansPerRequest;
  private Batch pending;
  // The pending batch's request as sent, reused by the next batch once this one is gone.
  private OtlpHttpSender.Payload payload = new OtlpHttpSender.Payload(INITIAL_PAYLOAD_BYTES);

  SpanExport(
      SpanQueue queue,
      SpanQueue tailQueue,
      Counter tailExported,
      Counter tailFailed,
      ExportChannel channel,
      int maxSpansPerRequest) {
    this.queue = queue;
    this.tailQueue = tailQueue;
    this.tailExported = tailExported;
    this.tailFailed = tailFailed;
    this.channel = channel;
    this.maxSpansPerRequest = maxSpansPerRequest;
  }

  /** Spans waiting in both queues. */
  int waiting() {
    return queue.size() + tailQueue.size();
  }

  /** Whether a batch waits to be sent (again). */
  boolean hasPending() {
    return pending != null;
  }

  /**
   * Unless a batch is pending, takes up to one request's worth of spans from the queue and encodes
   * them.
   *
   * @return whether a batch is pending now
   */
  boolean takeBatch(OtlpEncoder encoder) {
    if (pending != null) {
      return true;
    }
    List<SpanRecord> spans = new ArrayList<>(Math.min(waiting(), maxSpansPerRequest));
    // Tail spans take up to a quarter of a request first, so that a steady stream of sampled
    // spans cannot starve them; sampled spans take the rest, and tail spans what is left after.
    tailQueue.drainTo(spans, Math.max(1, maxSpansPerRequest / 4));
    int tailSpans = spans.size();
    queue.drainTo(spans, maxSpansPerRequest);
    int beforeMoreTail = spans.size();
    tailQueue.drainTo(spans, maxSpansPerRequest);
    tailSpans += spans.size() - beforeMoreTail;
    if (spans.isEmpty()) {
      return false;
    }
    try {
      ProtoWriter request = encoder.writeSpans(spans);
      if (payload.array().length > KEEP_PAYLOAD_BYTES) {
        payload = new OtlpHttpSender.Payload(INITIAL_PAYLOAD_BYTES);
      }
      channel.sender.fill(payload, request.array(), request.size());
      pending = new Batch(spans.size(), tailSpans);
      return true;
    } catch (RuntimeException e) {
      channel.counters.spansDropped(spans.size() - tailSpans);
      tailFailed.add(tailSpans);
      throw e;
    }
  }

  /**
   * Sends the pending batch. Accepted or rejected, it is gone; a retryable failure keeps it, unless
   * it was the last attempt or {@code finalFlush}.
   *
   * @return null unless sending must pause: then the retryable failure, for the backoff
   */
  OtlpHttpSender.Result sendPending(
      boolean finalFlush, int connectTimeoutMillis, int readTimeoutMillis) {
    OtlpHttpSender.Result result =
        channel.sender.sendTracesPayload(payload, connectTimeoutMillis, readTimeoutMillis);
    switch (result.outcome) {
      case SUCCESS:
        channel.counters.spansExported(pending.spanCount);
        tailExported.add(pending.tailSpanCount);
        pending = null;
        channel.succeeded();
        return null;
      case RETRYABLE:
        channel.counters.exportFailed();
        pending.attempts++;
        if (finalFlush || pending.attempts >= MAX_ATTEMPTS_PER_BATCH) {
          dropPending();
        }
        if (channel.explain(result)) {
          return result;
        }
        channel.log.warn(
            RateLimitedLog.Kind.EXPORT_RETRYABLE,
            "sending spans to "
                + channel.sender.endpoint()
                + " failed, will retry: "
                + result.detail);
        return result;
      default:
        channel.counters.exportFailed();
        dropPending();
        if (channel.explain(result)) {
          return null;
        }
        channel.log.warn(
            RateLimitedLog.Kind.EXPORT_REJECTED,
            "spans rejected by " + channel.sender.endpoint() + ", dropped: " + result.detail);
        return null;
    }
  }

  /** Drops and counts the pending batch, if any. */
  void dropPending() {
    if (pending != null) {
      channel.counters.spansDropped(pending.spanCount - pending.tailSpanCount);
      tailFailed.add(pending.tailSpanCount);
      pending = null;
    }
  }

  /** A batch of spans encoded as one request, whose payload is kept for retries. */
  private static final class Batch {
    final int spanCount;
    // Of spanCount, how many came from the tail queue.
    final int tailSpanCount;
    int attempts;

    Batch(int spanCount, int tailSpanCount) {
      this.spanCount = spanCount;
      this.tailSpanCount = tailSpanCount;
    }
  }
}
