package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.probe.ProbeTimelines;
import dev.klat.collector.correlate.probe.ProbeTimelines.Instants;
import dev.klat.model.BrokerProbeWire;
import dev.klat.model.SpanAttributes;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ProbeIngestTest {
  private static final long T0_MICROS = 1_700_000_000_000_000L;

  private final ProbeTimelines timelines = new ProbeTimelines(10, 100);
  private final ReceiverStats stats = new ReceiverStats();
  private final ProbeIngest ingest =
      new ProbeIngest(timelines, (broker, offset, uncertainty) -> {}, () -> 0L, stats);

  @Test
  void eachAppendRangeGetsItsProduceRequestsTimesInNanos() throws Exception {
    byte[] requests = new byte[2 * BrokerProbeWire.MAX_REQUEST_BYTES];
    int n = BrokerProbeWire.encodeRequest(requests, 0, 1_500, 250);
    n = BrokerProbeWire.encodeRequest(requests, n, BrokerProbeWire.UNKNOWN_MICROS, 40);
    byte[] body = request(appends(), Arrays.copyOf(requests, n));

    ProbeIngest.Rejections rejections = ingest.accept(body, body.length);

    assertThat(rejections.count()).isZero();
    Instants first = timelines.lookup("orders", 0, 5, 1);
    assertThat(first.appendNanos()).isEqualTo(T0_MICROS * 1000);
    assertThat(first.requestQueueNanos()).isEqualTo(1_500_000);
    assertThat(first.requestLocalNanos()).isEqualTo(250_000);
    Instants second = timelines.lookup("orders", 0, 15, 1);
    assertThat(second.requestQueueNanos()).as("unknown stays unknown").isEqualTo(-1);
    assertThat(second.requestLocalNanos()).isEqualTo(40_000);
  }

  @Test
  void aRecordWithoutRequestTimesLeavesThemUnknown() throws Exception {
    byte[] body = request(appends(), null);

    assertThat(ingest.accept(body, body.length).count()).isZero();

    Instants instants = timelines.lookup("orders", 0, 5, 1);
    assertThat(instants.hasAppend()).isTrue();
    assertThat(instants.requestQueueNanos()).isEqualTo(-1);
    assertThat(instants.requestLocalNanos()).isEqualTo(-1);
  }

  @Test
  void requestTimesNotOnePairPerAppendRangeRejectTheRecordWhole() throws Exception {
    byte[] requests = new byte[BrokerProbeWire.MAX_REQUEST_BYTES];
    int n = BrokerProbeWire.encodeRequest(requests, 0, 1_500, 250);
    byte[] body = request(appends(), Arrays.copyOf(requests, n));

    ProbeIngest.Rejections rejections = ingest.accept(body, body.length);

    assertThat(rejections.count()).isEqualTo(1);
    assertThat(rejections.firstError())
        .isEqualTo("orders-0: 1 append requests for 2 append ranges");
    assertThat(stats.probeRecordsRejected()).isEqualTo(1);
    assertThat(timelines.lookup("orders", 0, 5, 1).hasAppend()).isFalse();
  }

  @Test
  void requestTimesThatAreNotPairsRejectTheRecordWhole() throws Exception {
    byte[] body = request(appends(), new byte[] {5, 6, 7});

    ProbeIngest.Rejections rejections = ingest.accept(body, body.length);

    assertThat(rejections.count()).isEqualTo(1);
    assertThat(rejections.firstError())
        .isEqualTo("orders-0: request times of 3 values are not pairs");
    assertThat(stats.probeRecordsRejected()).isEqualTo(1);
    assertThat(timelines.lookup("orders", 0, 5, 1).hasAppend()).isFalse();
  }

  @Test
  void aTransactionalPartitionsStableRangesGiveV() throws Exception {
    byte[] commits = new byte[BrokerProbeWire.MAX_RANGE_BYTES];
    int c =
        BrokerProbeWire.encodeRange(commits, 0, 0, 0, 0, 19, T0_MICROS + 2000, T0_MICROS + 2000);
    byte[] stables = new byte[BrokerProbeWire.MAX_RANGE_BYTES];
    int s =
        BrokerProbeWire.encodeRange(stables, 0, 0, 0, 10, 19, T0_MICROS + 9000, T0_MICROS + 9000);
    byte[] body =
        transactionalRequest(true, Arrays.copyOf(commits, c), Arrays.copyOf(stables, s), 10);

    assertThat(ingest.accept(body, body.length).count()).isZero();

    assertThat(timelines.lookup("orders", 0, 15, 1).visibleNanos())
        .isEqualTo((T0_MICROS + 9000) * 1000);
    assertThat(timelines.lookup("orders", 0, 5, 1).visibleNanos())
        .as("below stable_from: V = H")
        .isEqualTo((T0_MICROS + 2000) * 1000);
  }

  @Test
  void aProbeThatDoesNotSayItReadsTheLastStableOffsetGivesNoV() throws Exception {
    byte[] commits = new byte[BrokerProbeWire.MAX_RANGE_BYTES];
    int c =
        BrokerProbeWire.encodeRange(commits, 0, 0, 0, 0, 19, T0_MICROS + 2000, T0_MICROS + 2000);
    byte[] body = transactionalRequest(false, Arrays.copyOf(commits, c), null, -1);

    assertThat(ingest.accept(body, body.length).count()).isZero();

    assertThat(timelines.lookup("orders", 0, 15, 1).hasCommit()).isTrue();
    assertThat(timelines.lookup("orders", 0, 15, 1).hasVisible()).isFalse();
  }

  @Test
  void stableRangesThatDoNotDecodeRejectTheRecordWhole() throws Exception {
    byte[] body = transactionalRequest(true, new byte[0], new byte[] {(byte) 0x80}, 10);

    ProbeIngest.Rejections rejections = ingest.accept(body, body.length);

    assertThat(rejections.count()).isEqualTo(1);
    assertThat(timelines.lookup("orders", 0, 5, 1).hasAppend()).isFalse();
  }

  // A record with the appends, the given commits and (optionally) stable ranges and stable_from,
  // from a probe that says whether it reads the last stable offset.
  private static byte[] transactionalRequest(
      boolean readsStable, byte[] commits, byte[] stables, long stableFrom) {
    ProtoWriter resource =
        new ProtoWriter()
            .messageField(1, keyValue(BrokerProbeWire.BROKER_ID, 3, 1))
            .messageField(1, keyValue(SpanAttributes.INSTANCE_ID.name(), 3, 0xAAL));
    if (readsStable) {
      resource.messageField(1, keyValue(BrokerProbeWire.READS_STABLE_OFFSET, 3, 1));
    }
    ProtoWriter record =
        new ProtoWriter()
            .messageField(6, keyValue(BrokerProbeWire.TOPIC, "orders"))
            .messageField(6, keyValue(BrokerProbeWire.PARTITION, 3, 0))
            .messageField(6, keyValue(BrokerProbeWire.LEADER_EPOCH, 3, 5))
            .messageField(6, keyValue(BrokerProbeWire.APPENDS, appends()))
            .messageField(6, keyValue(BrokerProbeWire.COMMITS, commits));
    if (stables != null) {
      record.messageField(6, keyValue(BrokerProbeWire.STABLES, stables));
    }
    if (stableFrom >= 0) {
      record.messageField(6, keyValue(BrokerProbeWire.STABLE_FROM, 3, stableFrom));
    }
    ProtoWriter scope =
        new ProtoWriter()
            .messageField(1, new ProtoWriter().stringField(1, BrokerProbeWire.SCOPE_NAME))
            .messageField(2, record);
    ProtoWriter resourceLogs = new ProtoWriter().messageField(1, resource).messageField(2, scope);
    return new ProtoWriter().messageField(1, resourceLogs).toByteArray();
  }

  // Two append ranges of broker 1's partition orders-0: offsets 0-9 at T0, 10-19 a ms later.
  private static byte[] appends() {
    byte[] out = new byte[2 * BrokerProbeWire.MAX_RANGE_BYTES];
    int n = BrokerProbeWire.encodeRange(out, 0, 0, 0, 0, 9, T0_MICROS, T0_MICROS);
    n =
        BrokerProbeWire.encodeRange(
            out, n, 9, T0_MICROS, 10, 19, T0_MICROS + 1000, T0_MICROS + 1000);
    return Arrays.copyOf(out, n);
  }

  // An ExportLogsServiceRequest of one probe record, as the probe writes it.
  private static byte[] request(byte[] appends, byte[] appendRequests) {
    ProtoWriter resource =
        new ProtoWriter()
            .messageField(1, keyValue(BrokerProbeWire.BROKER_ID, 3, 1))
            .messageField(1, keyValue(SpanAttributes.INSTANCE_ID.name(), 3, 0xAAL));
    ProtoWriter record =
        new ProtoWriter()
            .messageField(6, keyValue(BrokerProbeWire.TOPIC, "orders"))
            .messageField(6, keyValue(BrokerProbeWire.PARTITION, 3, 0))
            .messageField(6, keyValue(BrokerProbeWire.LEADER_EPOCH, 3, 5))
            .messageField(6, keyValue(BrokerProbeWire.APPENDS, appends));
    if (appendRequests != null) {
      record.messageField(6, keyValue(BrokerProbeWire.APPEND_REQUESTS, appendRequests));
    }
    ProtoWriter scope =
        new ProtoWriter()
            .messageField(1, new ProtoWriter().stringField(1, BrokerProbeWire.SCOPE_NAME))
            .messageField(2, record);
    ProtoWriter resourceLogs = new ProtoWriter().messageField(1, resource).messageField(2, scope);
    return new ProtoWriter().messageField(1, resourceLogs).toByteArray();
  }

  private static ProtoWriter keyValue(String key, int field, long value) {
    return new ProtoWriter()
        .stringField(1, key)
        .messageField(2, new ProtoWriter().varintField(field, value));
  }

  private static ProtoWriter keyValue(String key, String value) {
    return new ProtoWriter()
        .stringField(1, key)
        .messageField(2, new ProtoWriter().stringField(1, value));
  }

  private static ProtoWriter keyValue(String key, byte[] value) {
    return new ProtoWriter()
        .stringField(1, key)
        .messageField(2, new ProtoWriter().bytesField(7, value));
  }
}
