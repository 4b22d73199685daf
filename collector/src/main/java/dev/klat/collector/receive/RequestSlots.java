package dev.klat.collector.receive;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The request threads of an OTLP receiver and the slots that bound how many requests decode at
 * once, the same for HTTP and gRPC.
 */
final class RequestSlots implements AutoCloseable {
  private final Semaphore slots;
  private final ExecutorService executor;

  /**
   * {@code maxConcurrentRequests + receivingThreads} threads, so that refusals are answered while
   * every slot decodes, and (HTTP) bodies arrive on threads of their own while every slot decodes.
   * The queue is bounded; a full one makes the accepting thread run the request itself, which slows
   * accepting down instead of growing memory, or, with {@code onShed}, refuses it: HTTP's accepting
   * thread closes the connection then (a request there may wait for a slow sender's bytes, and the
   * accepting thread serves every connection).
   *
   * @param onShed null, or counts a request refused because the queue was full
   */
  RequestSlots(
      int maxConcurrentRequests, int receivingThreads, String threadName, Runnable onShed) {
    this.slots = new Semaphore(maxConcurrentRequests);
    int threads = maxConcurrentRequests + receivingThreads;
    RejectedExecutionHandler whenFull =
        onShed == null
            ? new ThreadPoolExecutor.CallerRunsPolicy()
            : (r, pool) -> {
              onShed.run();
              throw new RejectedExecutionException("all request threads busy");
            };
    this.executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(1024),
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            },
            whenFull);
  }

  /** The threads the server runs its requests on. */
  ExecutorService executor() {
    return executor;
  }

  /** Takes a slot if one is free; the caller refuses the request otherwise. */
  boolean tryAcquire() {
    return slots.tryAcquire();
  }

  /** Takes a slot if one is free or frees within {@code waitMillis}. */
  boolean tryAcquire(long waitMillis) {
    try {
      return slots.tryAcquire(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Gives back a slot taken by {@link #tryAcquire()}. */
  void release() {
    slots.release();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
