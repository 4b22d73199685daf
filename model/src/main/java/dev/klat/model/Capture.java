package dev.klat.model;

/**
 * How a record's breakdown was captured (section 8 of the latency model): the two tiers that give
 * per-record instants. The every-record histograms are a third tier, without instants.
 */
public enum Capture {
  /**
   * Head-sampled: the producer drew the record at {@code send()} and stamped klat's headers; both
   * sides report it whatever its latency. Unbiased: the percentiles of sampled records estimate
   * those of all records.
   */
  SAMPLED("sampled"),

  /**
   * Tail-captured: a side found the record slow after the fact (its {@code A - S} or {@code P -
   * timestamp} above that side's threshold) and reported what it saw. Biased towards slow records
   * by design: never mixed into the sampled percentiles.
   */
  TAIL("tail"),

  /**
   * Reported by an OpenTelemetry Kafka instrumentation (section 10 of the latency model): a client
   * without klat's agent, whose spans give {@code S} and {@code P} but not {@code D}, {@code F} or
   * {@code R}. Chosen by the instrumentation's own sampler, so neither klat's sampled records nor
   * tail records: reported apart, never mixed into the sampled percentiles. Never the value of a
   * {@code klat.capture} attribute (klat's agents do not send it): the collector sets it.
   */
  OPENTELEMETRY("opentelemetry");

  private final String id;

  Capture(String id) {
    this.id = id;
  }

  /**
   * The stable identifier: the value of the {@code klat.capture} span attribute, of the {@value
   * TagKeys#CAPTURE} metric label and of the {@code capture} field of the API.
   *
   * @return {@code "sampled"}, {@code "tail"} or {@code "opentelemetry"}
   */
  public String id() {
    return id;
  }

  /**
   * The capture of a {@code klat.capture} attribute's value: absent or unknown values are {@link
   * #SAMPLED}, since every span before tail capture was a sampled one.
   *
   * @param id the attribute's value, may be null
   * @return the capture
   */
  public static Capture fromId(String id) {
    return TAIL.id.equals(id) ? TAIL : SAMPLED;
  }
}
