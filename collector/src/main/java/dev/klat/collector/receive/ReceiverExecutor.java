package dev.klat.collector.receive;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The request threads of an OTLP receiver, the same for HTTP and gRPC. */
final class ReceiverExecutor {
  private ReceiverExecutor() {}

  /**
   * More threads than request slots, so that refusals are answered while every slot decodes; the
   * queue is bounded and a full one makes the accepting thread run the request itself, which slows
   * accepting down instead of growing memory.
   */
  static ExecutorService create(int maxConcurrentRequests, String threadName) {
    int threads = maxConcurrentRequests + 2;
    return new ThreadPoolExecutor(
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
}
