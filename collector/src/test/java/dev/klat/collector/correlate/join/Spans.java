package dev.klat.collector.correlate.join;

/** Hand-built spans for tests; times in milliseconds after a fixed epoch instant. */
public final class Spans {
  public static final long T0 = 1_800_000_000_000_000_000L; // epoch nanos, a whole millisecond
  public static final long PRODUCER_HOST = 0x1111L;
  public static final long CONSUMER_HOST = 0x2222L;

  private Spans() {}

  public static long ms(double millis) {
    return T0 + Math.round(millis * 1_000_000);
  }

  public static RecordKey key(long offset) {
    return new RecordKey("orders", 0, offset);
  }

  public static ProducerSpan producer(long offset, double s, double d, double a) {
    return producer(key(offset), PRODUCER_HOST, s, d, a, -1);
  }

  public static ProducerSpan producer(
      RecordKey key, long host, double s, double d, double a, long logAppendTimeMs) {
    return new ProducerSpan(
        key,
        7,
        key.offset() + 1,
        100 + key.offset(),
        host,
        ms(s),
        ms(d),
        ms(a),
        logAppendTimeMs,
        1,
        "p",
        ProducerEvidence.UNKNOWN);
  }

  public static ConsumerSpan consumer(long offset, String group, double f, double r, double p) {
    return consumer(key(offset), group, CONSUMER_HOST, f, r, p);
  }

  public static ConsumerSpan consumer(
      RecordKey key, String group, long host, double f, double r, double p) {
    return new ConsumerSpan(
        key,
        group,
        7,
        key.offset() + 1,
        500 + key.offset(),
        100 + key.offset(),
        host,
        ms(f),
        ms(r),
        ms(p),
        -1,
        "c",
        ConsumerEvidence.UNKNOWN,
        false,
        0);
  }

  /**
   * The same span from a consumer with this {@code fetch.min.bytes}, which read the response as it
   * arrived.
   */
  public static ConsumerSpan withFetchMinBytes(ConsumerSpan c, int fetchMinBytes) {
    return withFetchSettings(c, fetchMinBytes, true);
  }

  public static ConsumerSpan withFetchSettings(
      ConsumerSpan c, int fetchMinBytes, boolean responseReadPromptly) {
    return copy(
        c,
        new ConsumerEvidence(fetchMinBytes, -1, -1, -1, -1, -1),
        responseReadPromptly,
        c.uncommittedNanos());
  }

  /**
   * The same span, from a consumer whose previous response for the partition, received at {@code
   * uncommittedMs}, found the record not yet committed.
   */
  public static ConsumerSpan withUncommittedAt(ConsumerSpan c, double uncommittedMs) {
    return copy(c, c.evidence(), c.responseReadPromptly(), ms(uncommittedMs));
  }

  private static ConsumerSpan copy(
      ConsumerSpan c,
      ConsumerEvidence settings,
      boolean responseReadPromptly,
      long uncommittedNanos) {
    return new ConsumerSpan(
        c.key(),
        c.group(),
        c.traceIdHigh(),
        c.traceIdLow(),
        c.spanId(),
        c.parentSpanId(),
        c.instanceId(),
        c.fetchRequestNanos(),
        c.fetchResponseNanos(),
        c.pollNanos(),
        c.logAppendTimeMs(),
        c.clientId(),
        settings,
        responseReadPromptly,
        uncommittedNanos);
  }

  /** The same span from a producer with {@code acks=all}. */
  public static ProducerSpan acksAll(ProducerSpan p) {
    return new ProducerSpan(
        p.key(),
        p.traceIdHigh(),
        p.traceIdLow(),
        p.spanId(),
        p.instanceId(),
        p.sendNanos(),
        p.drainNanos(),
        p.ackNanos(),
        p.logAppendTimeMs(),
        p.leaderNodeId(),
        p.clientId(),
        new ProducerEvidence(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, true));
  }
}
