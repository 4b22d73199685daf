package dev.klat.collector.hostile;

import java.net.http.HttpRequest;
import java.util.function.Supplier;

/**
 * One hostile client, run on a thread of its own beside the honest stream until it has done its
 * harm or {@code untilNanos} ({@link System#nanoTime()}) has passed. What it saw goes to {@code
 * log} (one count per outcome, for the failure message); what the collector must survive is checked
 * by the suite, not by the attack. To add one: a static method of this shape, or {@link #posting}
 * of a body, and a line in {@link HostileIT#attacks()}.
 */
@FunctionalInterface
interface Attack {
  void run(HostileCollector target, long untilNanos, Outcomes log) throws Exception;

  /**
   * Posts the bodies {@code bodies} makes to the OTLP/HTTP {@code path} one after another until the
   * attack's time is up, counting the answers as {@code name status}: for attacks that are a body
   * (a label flood, a forged clock).
   */
  static Attack posting(String name, String path, String contentType, Supplier<byte[]> bodies) {
    return (target, untilNanos, log) -> {
      while (System.nanoTime() < untilNanos) {
        int status =
            target.post(
                path, contentType, null, HttpRequest.BodyPublishers.ofByteArray(bodies.get()));
        log.add(name + " " + status);
      }
    };
  }
}
