package dev.klat.collector.hostile;

import dev.klat.collector.IngestBench;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An honest agent: OTLP/protobuf trace requests of {@link IngestBench#PER_REQUEST} producer and
 * consumer span pairs each (every pair one breakdown once joined), posted one after another with a
 * pause between them, each retried as an OTLP exporter does (after {@code Retry-After} on 429 and
 * 503, and after a cut connection) until it is answered 200 or {@link #GIVE_UP_SECONDS} pass.
 */
final class HonestStream implements Runnable {
  static final long GIVE_UP_SECONDS = 30;

  private final HostileCollector target;
  private final List<byte[]> bodies;
  private final long pauseMillis;
  private final Outcomes log;
  private volatile long accepted;

  /**
   * @param round which of IngestBench's rounds (distinct offsets, so that streams never overlap)
   */
  HonestStream(HostileCollector target, int requests, int round, long pauseMillis, Outcomes log) {
    this.target = target;
    this.bodies = IngestBench.bodies(requests, round);
    this.pauseMillis = pauseMillis;
    this.log = log;
  }

  /** The span pairs sent: the breakdowns the collector must count. */
  long pairs() {
    return (long) bodies.size() * IngestBench.PER_REQUEST;
  }

  /** The requests answered 200. */
  long accepted() {
    return accepted;
  }

  @Override
  public void run() {
    try {
      for (byte[] body : bodies) {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS);
        int status = post(body);
        while (status != 200 && System.nanoTime() < giveUp) {
          log.add("honest retried after " + status);
          Thread.sleep(1_000);
          status = post(body);
        }
        if (status == 200) {
          accepted++;
        } else {
          log.add("honest gave up after " + status);
        }
        Thread.sleep(pauseMillis);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One attempt, no retry: the status, or -1 when the connection was cut. */
  int post(byte[] body) {
    int status =
        target.post(
            "/v1/traces",
            "application/x-protobuf",
            null,
            HttpRequest.BodyPublishers.ofByteArray(body));
    log.add("honest " + status);
    return status;
  }
}
