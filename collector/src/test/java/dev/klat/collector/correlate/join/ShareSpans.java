package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.instants.BrokerInstants;
import java.util.ArrayList;
import java.util.List;

/**
 * Share consumers' spans for tests outside the join (section 11 of the latency model), shaped as
 * the share agent sends them, and a correlator that joins them into breakdowns.
 */
public final class ShareSpans {
  public static final String GROUP = "workers";
  public static final long WINDOW_NANOS = 10_000_000_000L;

  private ShareSpans() {}

  /** A producer with acks=all whose acknowledgement at 10 ms bounds H. */
  public static ProducerSpan producer(String topic, long offset) {
    RecordKey key = new RecordKey(topic, 0, offset);
    return Spans.acksAll(Spans.producer(key, Spans.PRODUCER_HOST, 0, 2, 10, -1));
  }

  /** One delivery: F, R and P in ms on the consumer host's clock; {@code ackType} null for none. */
  public static ConsumerSpan delivery(
      String topic, long offset, int count, double f, String ackType, String error) {
    ConsumerSpan c =
        Spans.consumer(
            new RecordKey(topic, 0, offset), GROUP, Spans.CONSUMER_HOST, f, f + 1, f + 3);
    return new ConsumerSpan(
            c.key(),
            c.group(),
            c.traceIdHigh(),
            c.traceIdLow(),
            1000L * count + offset,
            c.parentSpanId(),
            c.instanceId(),
            c.fetchRequestNanos(),
            c.fetchResponseNanos(),
            c.pollNanos(),
            c.logAppendTimeMs(),
            c.clientId(),
            c.evidence(),
            c.responseReadPromptly(),
            c.uncommittedNanos())
        .withShare(
            new ShareDelivery(
                count,
                ackType == null ? ShareDelivery.NOT_ACKNOWLEDGED : Spans.ms(f + 5),
                ackType,
                error));
  }

  /**
   * The breakdowns of records of {@code topic}: {@code once} accepted at their first delivery
   * (fetched at 11 ms, after H at 10 ms), then {@code timedOut} whose first delivery's lock ran out
   * and whose second, at {@code redeliveredAtMs}, was accepted.
   */
  public static List<JoinedBreakdown> records(
      String topic, int once, int timedOut, double redeliveredAtMs) {
    long[] now = {0};
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c =
        new Correlator(
            new Correlator.Settings(WINDOW_NANOS, 100_000, 60_000_000_000L, 100),
            () -> now[0],
            BrokerInstants.logAppendTime(),
            out::add);
    long offset = 0;
    for (int i = 0; i < once; i++, offset++) {
      c.offerProducer(producer(topic, offset));
      c.offerConsumer(delivery(topic, offset, 1, 11, "accept", null));
    }
    for (int i = 0; i < timedOut; i++, offset++) {
      c.offerProducer(producer(topic, offset));
      c.offerConsumer(delivery(topic, offset, 1, 11, null, null));
      c.offerConsumer(delivery(topic, offset, 2, redeliveredAtMs + i, "accept", null));
    }
    return out;
  }

  /**
   * The breakdowns of {@code count} records whose first delivery (fetched at 11 ms) was
   * acknowledged with {@code firstAck} and, when not null, the broker's {@code firstError}, and
   * whose second delivery, at {@code redeliveredAtMs}, was accepted; offsets from {@code from}.
   */
  public static List<JoinedBreakdown> redelivered(
      String topic, long from, int count, String firstAck, String firstError, double atMs) {
    long[] now = {0};
    List<JoinedBreakdown> out = new ArrayList<>();
    Correlator c =
        new Correlator(
            new Correlator.Settings(WINDOW_NANOS, 100_000, 60_000_000_000L, 100),
            () -> now[0],
            BrokerInstants.logAppendTime(),
            out::add);
    for (long offset = from; offset < from + count; offset++) {
      c.offerProducer(producer(topic, offset));
      c.offerConsumer(delivery(topic, offset, 1, 11, firstAck, firstError));
      c.offerConsumer(delivery(topic, offset, 2, atMs, "accept", null));
    }
    return out;
  }
}
