package dev.klat.collector.receive;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
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
   * More threads than request slots, so that refusals are answered while every slot decodes; the
   * queue is bounded and a full one makes the accepting thread run the request itself, which slows
   * accepting down instead of growing memory.
   */
  RequestSlots(int maxConcurrentRequests, String threadName) {
    this.slots = new Semaphore(maxConcurrentRequests);
    int threads = maxConcurrentRequests + 2;
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
            new ThreadPoolExecutor.CallerRunsPolicy());
  }

  /** The threads the server runs its requests on. */
  ExecutorService executor() {
    return executor;
  }

  /** Takes a slot if one is free; the caller refuses the request otherwise. */
  boolean tryAcquire() {
    return slots.tryAcquire();
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
