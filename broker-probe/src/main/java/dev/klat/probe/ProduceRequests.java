package dev.klat.probe;

import dev.klat.agentcore.log.AgentLog;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The timing of the request the current broker thread is handling, read at an append: how long it
 * waited in the request queue ({@code requestDequeueTimeNanos - startTimeNanos}, what Kafka's
 * {@code RequestQueueTimeMs} measures for that one request) and how long since it left the queue.
 *
 * <p>Kafka's request handler keeps the request it is handling in a thread-local of its own ({@code
 * KafkaRequestHandler.threadCurrentRequest}, 3.6 to 4.4, there for callbacks that must come back to
 * a request thread); it is set around {@code KafkaApis.handle} and around a callback that resumes
 * the request (a transactional produce after its verification), so an append inside a produce
 * request finds it and any other append (a coordinator's write on its own thread) does not. The
 * thread-local is found once, through the Scala object's public accessor; both times are the
 * request's own fields, read through {@link LongReader}. Kafka reads them with {@code
 * System.nanoTime()}, the clock the probe reads too.
 */
final class ProduceRequests {

  private static final String HANDLER_OBJECT = "kafka.server.KafkaRequestHandler$";
  private static final String CURRENT_REQUEST_ACCESSOR =
      "kafka$server$KafkaRequestHandler$$threadCurrentRequest";

  private static final LongReader RECEIVED = new LongReader("startTimeNanos");
  private static final LongReader DEQUEUED = new LongReader("requestDequeueTimeNanos");

  // Null until the first append; NOT_FOUND when this Kafka has no such thread-local.
  private static volatile ThreadLocal<?> currentRequest;
  private static final ThreadLocal<?> NOT_FOUND = new ThreadLocal<>();

  private ProduceRequests() {}

  /**
   * The current thread's request times at {@code nowNanos} ({@code System.nanoTime()}), packed
   * ({@link RequestTimes}), or {@link RequestTimes#UNKNOWN} off a request thread.
   *
   * @param brokerClass a class of the broker, whose class loader holds Kafka's request handler
   */
  static long timesAt(long nowNanos, Class<?> brokerClass) throws Throwable {
    ThreadLocal<?> current = currentRequest;
    if (current == null) {
      current = find(brokerClass.getClassLoader());
      currentRequest = current;
    }
    if (current == NOT_FOUND) {
      return RequestTimes.UNKNOWN;
    }
    Object request = current.get();
    if (request == null) {
      return RequestTimes.UNKNOWN;
    }
    long received = RECEIVED.read(request);
    long dequeued = DEQUEUED.read(request);
    // A request not yet dequeued reads -1; a reader that found no method, MIN_VALUE.
    if (received == Long.MIN_VALUE
        || dequeued == Long.MIN_VALUE
        || dequeued - received < 0
        || nowNanos - dequeued < 0) {
      return RequestTimes.UNKNOWN;
    }
    return RequestTimes.pack((dequeued - received) / 1000, (nowNanos - dequeued) / 1000);
  }

  private static ThreadLocal<?> find(ClassLoader loader) {
    try {
      Class<?> handler = Class.forName(HANDLER_OBJECT, false, loader);
      Object module = handler.getField("MODULE$").get(null);
      MethodHandle accessor =
          MethodHandles.publicLookup()
              .findVirtual(
                  handler, CURRENT_REQUEST_ACCESSOR, MethodType.methodType(ThreadLocal.class));
      ThreadLocal<?> found = (ThreadLocal<?>) accessor.invoke(module);
      return found == null ? NOT_FOUND : found;
    } catch (Throwable t) {
      AgentLog.global()
          .warnOnce(
              "probe-produce-requests",
              "broker probe: the request handler's current request is not readable here ("
                  + t
                  + "): appends carry no request times");
      return NOT_FOUND;
    }
  }
}
