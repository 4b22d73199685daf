package dev.klat.collector.receive;

import dev.klat.model.BrokerProbeWire;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decodes an OTLP {@code ExportLogsServiceRequest} (protobuf) for the log records of klat's broker
 * probe ({@link BrokerProbeWire}): per resource (a broker), its attributes and each record's
 * partition, leader epoch and packed ranges. Records of any other scope are counted and skipped, so
 * that a user's own log pipeline pointed here does no harm. Every length is checked against its
 * enclosing message, as for traces.
 */
final class OtlpLogsProtobuf {

  private OtlpLogsProtobuf() {}

  /** One broker's resource and the probe records under it. */
  record BrokerReport(Map<String, Object> resource, List<PartitionRanges> partitions) {}

  /**
   * One probe record: a partition's ranges of one leader term, the follower of each commit range
   * and the produce request's times of each append range (each empty when the probe did not say),
   * and the ranges the last stable offset passed with the offset they are complete from (empty and
   * -1 for a partition without transactions, or a probe that does not read it).
   */
  record PartitionRanges(
      String topic,
      int partition,
      int leaderEpoch,
      byte[] appends,
      byte[] commits,
      byte[] commitFollowers,
      byte[] appendRequests,
      byte[] stables,
      long stableFrom) {}

  /** What a request held. */
  record Decoded(
      List<BrokerReport> reports, long otherRecords, long invalidRecords, String error) {}

  static Decoded decode(byte[] body, int length) throws MalformedException {
    ProtoReader r = new ProtoReader(body, length);
    List<BrokerReport> reports = new ArrayList<>();
    long[] counts = new long[2];
    String[] error = {""};
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        reports.add(resourceLogs(r, counts, error));
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return new Decoded(reports, counts[0], counts[1], error[0]);
  }

  private static BrokerReport resourceLogs(ProtoReader r, long[] counts, String[] error)
      throws MalformedException {
    Map<String, Object> resource = Map.of();
    List<PartitionRanges> partitions = new ArrayList<>();
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        resource = OtlpProtobuf.resource(r);
        r.pop(outer);
      } else if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        scopeLogs(r, partitions, counts, error);
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    return new BrokerReport(resource, partitions);
  }

  private static void scopeLogs(
      ProtoReader r, List<PartitionRanges> out, long[] counts, String[] error)
      throws MalformedException {
    // The scope may follow its records on the wire: read it first, then the records.
    int start = r.position();
    String scope = "";
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        while (r.hasMore()) {
          int t = r.tag();
          if (t == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
            scope = r.string();
          } else {
            r.skip(t);
          }
        }
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
    r.rewind(start);
    boolean probe = BrokerProbeWire.SCOPE_NAME.equals(scope);
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        int outer = r.push();
        if (!probe) {
          counts[0]++;
        } else {
          PartitionRanges ranges = logRecord(r);
          if (ranges == null) {
            counts[1]++;
            if (error[0].isEmpty()) {
              error[0] = "a klat-broker-probe record without topic, partition or leader epoch";
            }
          } else {
            out.add(ranges);
          }
        }
        r.pop(outer);
      } else {
        r.skip(tag);
      }
    }
  }

  private static PartitionRanges logRecord(ProtoReader r) throws MalformedException {
    String topic = null;
    long partition = -1;
    long epoch = -1;
    byte[] appends = null;
    byte[] commits = null;
    byte[] commitFollowers = null;
    byte[] appendRequests = null;
    byte[] stables = null;
    long stableFrom = -1;
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag != (6 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        r.skip(tag);
        continue;
      }
      int outer = r.push();
      String key = null;
      Object value = null;
      while (r.hasMore()) {
        int t = r.tag();
        if (t == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
          key = r.string();
        } else if (t == (2 << 3 | ProtoReader.LENGTH_DELIMITED)) {
          int any = r.push();
          value = anyValue(r);
          r.pop(any);
        } else {
          r.skip(t);
        }
      }
      r.pop(outer);
      if (key == null || value == null) {
        continue;
      }
      switch (key) {
        case BrokerProbeWire.TOPIC -> topic = value instanceof String s ? s : null;
        case BrokerProbeWire.PARTITION -> partition = value instanceof Long l ? l : -1;
        case BrokerProbeWire.LEADER_EPOCH -> epoch = value instanceof Long l ? l : -1;
        case BrokerProbeWire.APPENDS -> appends = value instanceof byte[] b ? b : null;
        case BrokerProbeWire.COMMITS -> commits = value instanceof byte[] b ? b : null;
        case BrokerProbeWire.COMMIT_FOLLOWERS ->
            commitFollowers = value instanceof byte[] b ? b : null;
        case BrokerProbeWire.APPEND_REQUESTS ->
            appendRequests = value instanceof byte[] b ? b : null;
        case BrokerProbeWire.STABLES -> stables = value instanceof byte[] b ? b : null;
        case BrokerProbeWire.STABLE_FROM -> stableFrom = value instanceof Long l ? l : -1;
        default -> {
          // Not a key of the probe's: ignored, as OTLP allows more attributes.
        }
      }
    }
    if (topic == null
        || topic.isEmpty()
        || partition < 0
        || partition > Integer.MAX_VALUE
        || epoch < 0
        || epoch > Integer.MAX_VALUE) {
      return null;
    }
    return new PartitionRanges(
        topic,
        (int) partition,
        (int) epoch,
        appends == null ? new byte[0] : appends,
        commits == null ? new byte[0] : commits,
        commitFollowers == null ? new byte[0] : commitFollowers,
        appendRequests == null ? new byte[0] : appendRequests,
        stables == null ? new byte[0] : stables,
        stableFrom < 0 ? -1 : stableFrom);
  }

  // string_value, int_value and bytes_value: the kinds the probe writes; others read as null.
  private static Object anyValue(ProtoReader r) throws MalformedException {
    Object value = null;
    while (r.hasMore()) {
      int tag = r.tag();
      if (tag == (1 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        value = r.string();
      } else if (tag == (3 << 3 | ProtoReader.VARINT)) {
        value = r.varint();
      } else if (tag == (7 << 3 | ProtoReader.LENGTH_DELIMITED)) {
        value = r.bytes();
      } else {
        r.skip(tag);
      }
    }
    return value;
  }
}
