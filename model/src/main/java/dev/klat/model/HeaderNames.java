package dev.klat.model;

/**
 * Names of the Kafka record headers klat reads and writes. The producer agent adds them only to
 * sampled records, so unsampled records carry no extra bytes.
 */
public final class HeaderNames {

  /**
   * {@value}: the W3C Trace Context {@code traceparent} header, in the text form the OpenTelemetry
   * Kafka instrumentation uses. Links the consumer's span to the producer's; an existing value
   * written by the application's own instrumentation is kept.
   */
  public static final String TRACEPARENT = "traceparent";

  /**
   * {@value}: the W3C Trace Context {@code tracestate} header, propagated with {@link
   * #TRACEPARENT}.
   */
  public static final String TRACESTATE = "tracestate";

  /**
   * {@value}: klat's binary timing header, carrying the sampling decision and {@code S}; its layout
   * is defined by {@link TimingHeader}.
   */
  public static final String TIMING = "klat-timing";

  private HeaderNames() {}
}
