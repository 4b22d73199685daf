package dev.klat.model;

/**
 * The HTTP response headers with which the klat collector lets an agent measure the offset between
 * their clocks, NTP-style, on the OTLP/HTTP exports the agent makes anyway (section 5 of the
 * latency model). With {@code t0} the agent's wall clock just before it sends a request, {@code t1}
 * and {@code t2} the collector's (these headers) and {@code t3} the agent's just after it read the
 * status:
 *
 * <ul>
 *   <li>{@code clock(collector) - clock(agent) = ((t1 - t0) + (t2 - t3)) / 2}, and
 *   <li>the true value lies within {@code ((t3 - t0) - (t2 - t1)) / 2} of it, because the request
 *       and the response each took a non-negative time.
 * </ul>
 *
 * <p>The collector sends both on every OTLP/HTTP response, success or error; over OTLP/gRPC the
 * same names (in lower case) are response metadata: headers on success, trailers on error. Values
 * are decimal integers, wall-clock microseconds since the Unix epoch. An endpoint that sends
 * neither (any other OTLP backend) gives no measurement, and nothing else changes.
 */
public final class ClockSyncHeaders {

  /** {@value}: the collector's wall clock when it received the request, {@code t1}. */
  public static final String RECEIVE_TIME_MICROS = "X-Klat-Receive-Time-Micros";

  /** {@value}: the collector's wall clock just before it sent the response, {@code t2}. */
  public static final String SEND_TIME_MICROS = "X-Klat-Send-Time-Micros";

  private ClockSyncHeaders() {}
}
