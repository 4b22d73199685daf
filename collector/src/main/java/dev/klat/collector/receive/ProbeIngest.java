package dev.klat.collector.receive;

import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.correlate.probe.ProbeTimelines.TermKey;
import dev.klat.collector.receive.OtlpLogsProtobuf.BrokerReport;
import dev.klat.collector.receive.OtlpLogsProtobuf.PartitionRanges;
import dev.klat.model.BrokerProbeWire;
import dev.klat.model.SpanAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Takes the broker probes' log records ({@code /v1/logs}) into {@link ProbeTimelines}: the ranges,
 * each commit range's follower and each append range's produce request times. A record whose
 * ranges, followers or request times do not decode, or whose followers or request times are not one
 * per range, is rejected whole (partial success) and counted; the other records of the request
 * still count. A resource without a broker id or an instance id is rejected too: its ranges could
 * not be given a leader term. The ranges the last stable offset passed (section 9), and whether the
 * probe reads it at all ({@link BrokerProbeWire#READS_STABLE_OFFSET}, absent from an older probe),
 * are stored beside them.
 */
final class ProbeIngest {

  private final ProbeTimelines timelines;
  private final BrokerClockSink clockSink;
  private final LongSupplier nanoTime;
  private final ReceiverStats stats;

  /** Receives a broker's measurement of its clock against the collector's. */
  interface BrokerClockSink {
    void offer(int brokerId, long offsetNanos, long uncertaintyNanos);
  }

  ProbeIngest(
      ProbeTimelines timelines,
      BrokerClockSink clockSink,
      LongSupplier nanoTime,
      ReceiverStats stats) {
    this.stats = stats;
    this.timelines = timelines;
    this.clockSink = clockSink;
    this.nanoTime = nanoTime;
  }

  /**
   * Decodes and stores one request.
   *
   * @return the number of records rejected, and the first reason, for the partial success
   */
  Rejections accept(byte[] body, int length) throws MalformedException {
    OtlpLogsProtobuf.Decoded decoded = OtlpLogsProtobuf.decode(body, length);
    long rejected = decoded.invalidRecords();
    String firstError = decoded.error();
    long received = 0;
    for (BrokerReport report : decoded.reports()) {
      received += report.partitions().size();
      long brokerId = number(report, BrokerProbeWire.BROKER_ID);
      long instanceId = number(report, SpanAttributes.INSTANCE_ID.name());
      if (brokerId < 0 || brokerId > Integer.MAX_VALUE || instanceId == Long.MIN_VALUE) {
        if (!report.partitions().isEmpty()) {
          rejected += report.partitions().size();
          firstError =
              firstError.isEmpty()
                  ? "a broker probe resource without "
                      + BrokerProbeWire.BROKER_ID
                      + " or klat.instance.id"
                  : firstError;
        }
        continue;
      }
      boolean readsStable = number(report, BrokerProbeWire.READS_STABLE_OFFSET) == 1;
      for (PartitionRanges ranges : report.partitions()) {
        String error = store((int) brokerId, instanceId, readsStable, ranges);
        if (error != null) {
          rejected++;
          firstError = firstError.isEmpty() ? error : firstError;
        }
      }
      long coveredMicros = number(report, BrokerProbeWire.COVERED_UNTIL_MICROS);
      if (coveredMicros > 0 && coveredMicros < Long.MAX_VALUE / 1000) {
        timelines.covered((int) brokerId, coveredMicros * 1000, nanoTime.getAsLong());
      }
      long offset = number(report, SpanAttributes.CLOCK_COLLECTOR_OFFSET_NANOS.name());
      long uncertainty = number(report, SpanAttributes.CLOCK_COLLECTOR_UNCERTAINTY_NANOS.name());
      if (offset != Long.MIN_VALUE && uncertainty >= 0) {
        clockSink.offer((int) brokerId, offset, uncertainty);
      }
    }
    stats.probeRecordsReceived.addAndGet(received);
    stats.probeRecordsRejected.addAndGet(rejected);
    stats.probeRecordsNotKlat.addAndGet(decoded.otherRecords());
    return new Rejections(rejected, firstError);
  }

  record Rejections(long count, String firstError) {}

  private String store(int brokerId, long instanceId, boolean readsStable, PartitionRanges ranges) {
    String topicProblem = WireNames.topicProblem(ranges.topic());
    if (topicProblem != null) {
      return topicProblem;
    }
    List<long[]> appends = new ArrayList<>();
    List<long[]> commits = new ArrayList<>();
    List<long[]> stables = new ArrayList<>();
    int[] followers;
    long[] requestMicros;
    try {
      decode(ranges.appends(), appends);
      decode(ranges.commits(), commits);
      decode(ranges.stables(), stables);
      byte[] packed = ranges.commitFollowers();
      followers = BrokerProbeWire.decodeFollowers(packed, 0, packed.length);
      byte[] requests = ranges.appendRequests();
      requestMicros = BrokerProbeWire.decodeRequests(requests, 0, requests.length);
      for (long micros : requestMicros) {
        if (micros > MAX_REQUEST_MICROS) {
          throw new IllegalArgumentException("a request time out of range: " + micros);
        }
      }
    } catch (IllegalArgumentException e) {
      return ranges.topic() + "-" + ranges.partition() + ": " + e.getMessage();
    }
    if (followers.length != 0 && followers.length != commits.size()) {
      return ranges.topic()
          + "-"
          + ranges.partition()
          + ": "
          + followers.length
          + " commit followers for "
          + commits.size()
          + " commit ranges";
    }
    if (requestMicros.length != 0 && requestMicros.length / 2 != appends.size()) {
      return ranges.topic()
          + "-"
          + ranges.partition()
          + ": "
          + requestMicros.length / 2
          + " append requests for "
          + appends.size()
          + " append ranges";
    }
    TermKey term = new TermKey(brokerId, instanceId, ranges.leaderEpoch());
    if (readsStable || ranges.stableFrom() >= 0 || !stables.isEmpty()) {
      timelines.stableOffsets(
          term, ranges.topic(), ranges.partition(), readsStable, ranges.stableFrom());
    }
    for (int i = 0; i < appends.size(); i++) {
      long[] r = appends.get(i);
      long queueNanos = requestMicros.length == 0 ? -1 : nanos(requestMicros[2 * i]);
      long localNanos = requestMicros.length == 0 ? -1 : nanos(requestMicros[2 * i + 1]);
      timelines.append(
          term, ranges.topic(), ranges.partition(), r[0], r[1], r[2], r[3], queueNanos, localNanos);
    }
    for (int i = 0; i < commits.size(); i++) {
      long[] r = commits.get(i);
      int follower = followers.length == 0 ? BrokerProbeWire.NO_FOLLOWER : followers[i];
      timelines.commit(term, ranges.topic(), ranges.partition(), r[0], r[1], r[2], r[3], follower);
    }
    for (long[] r : stables) {
      timelines.stable(term, ranges.topic(), ranges.partition(), r[0], r[1], r[2], r[3]);
    }
    return null;
  }

  // No request waits a day in a broker: a longer time is bytes gone wrong, not a measurement.
  private static final long MAX_REQUEST_MICROS = 86_400_000_000L;

  // A request time the probe could not read (UNKNOWN_MICROS) stays unknown.
  private static long nanos(long micros) {
    return micros < 0 ? -1 : micros * 1000;
  }

  private static void decode(byte[] packed, List<long[]> out) {
    BrokerProbeWire.decodeRanges(
        packed,
        0,
        packed.length,
        (first, last, earliestMicros, latestMicros) -> {
          if (earliestMicros <= 0 || latestMicros > Long.MAX_VALUE / 1000) {
            throw new IllegalArgumentException("a range time out of range: " + latestMicros);
          }
          out.add(new long[] {first, last, earliestMicros * 1000, latestMicros * 1000});
        });
  }

  private static long number(BrokerReport report, String key) {
    Object value = report.resource().get(key);
    return value instanceof Long l ? l : Long.MIN_VALUE;
  }
}
