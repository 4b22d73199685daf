package dev.klat.agent.consumer;

/**
 * When a fetch request was created ({@code F}) and when its response was handled ({@code R}), in
 * {@link System#nanoTime()}. Kept in the {@code klat$state} field of a {@code FetchRequestData}
 * (only {@code F} set) and of each {@code CompletedFetch} of the response (both set). Immutable, so
 * that the application thread reads what the network thread wrote without a lock.
 */
final class FetchStamp {

  /** 0 when unknown: the request was created before the agent could see it. */
  final long requestNanos;

  final long responseNanos;

  /** Whether {@code R} is when the response arrived, not when a busy client got round to it. */
  final boolean readPromptly;

  /**
   * The poll state of the thread that built the fetch request, on a request's stamp only (else
   * null): whether that thread was waiting in {@code poll()} when another thread ran the response
   * handler.
   */
  final PollContext requester;

  FetchStamp(long requestNanos, long responseNanos, boolean readPromptly) {
    this(requestNanos, responseNanos, readPromptly, null);
  }

  private FetchStamp(
      long requestNanos, long responseNanos, boolean readPromptly, PollContext requester) {
    this.requestNanos = requestNanos;
    this.responseNanos = responseNanos;
    this.readPromptly = readPromptly;
    this.requester = requester;
  }

  /** The stamp of a fetch request built now on a thread whose poll state is {@code requester}. */
  static FetchStamp request(long requestNanos, PollContext requester) {
    return new FetchStamp(requestNanos, 0L, false, requester);
  }
}
