package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.BrokerProbeWire;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the probe sends, read with the real OTLP schema. */
class LogsEncoderTest {

  @Test
  void aRequestCarriesTheBrokerAndOneRecordPerPartitionTerm() throws Exception {
    LogsEncoder encoder = new LogsEncoder("kafka-broker", 0x1234L, "1.0");
    RangeList appends = new RangeList(10, 0);
    appends.addAppend(100, 104, 1_700_000_000_000_001L, 1_250, 80);
    RangeList commits = new RangeList(10, 0, true);
    commits.add(95, 99, 1_700_000_000_000_002L);
    commits.add(100, 104, 1_700_000_000_000_900L, 3);

    encoder.begin(2, 1_700_000_000_001_000L, 7, -250_000L, 40_000L);
    encoder.add("orders", 3, 11, appends, commits, 1_700_000_000_001_000_000L);
    ExportLogsServiceRequest request = ExportLogsServiceRequest.parseFrom(encoder.finish());

    ResourceLogs resourceLogs = request.getResourceLogs(0);
    Map<String, KeyValue> resource = byKey(resourceLogs.getResource().getAttributesList());
    assertThat(resource.get("service.name").getValue().getStringValue()).isEqualTo("kafka-broker");
    assertThat(resource.get("klat.instance.id").getValue().getIntValue()).isEqualTo(0x1234L);
    assertThat(resource.get(BrokerProbeWire.BROKER_ID).getValue().getIntValue()).isEqualTo(2);
    assertThat(resource.get(BrokerProbeWire.COVERED_UNTIL_MICROS).getValue().getIntValue())
        .isEqualTo(1_700_000_000_001_000L);
    assertThat(resource.get(BrokerProbeWire.DROPPED_EVENTS).getValue().getIntValue()).isEqualTo(7);
    assertThat(resource.get("klat.clock.collector_offset_ns").getValue().getIntValue())
        .isEqualTo(-250_000L);
    assertThat(resourceLogs.getScopeLogs(0).getScope().getName())
        .isEqualTo(BrokerProbeWire.SCOPE_NAME);
    LogRecord record = resourceLogs.getScopeLogs(0).getLogRecords(0);
    assertThat(record.getEventName()).isEqualTo(LogsEncoder.EVENT_NAME);
    Map<String, KeyValue> attributes = byKey(record.getAttributesList());
    assertThat(attributes.get(BrokerProbeWire.TOPIC).getValue().getStringValue())
        .isEqualTo("orders");
    assertThat(attributes.get(BrokerProbeWire.PARTITION).getValue().getIntValue()).isEqualTo(3);
    assertThat(attributes.get(BrokerProbeWire.LEADER_EPOCH).getValue().getIntValue()).isEqualTo(11);
    assertThat(decode(attributes.get(BrokerProbeWire.APPENDS)))
        .containsExactly("100-104@1700000000000001");
    assertThat(decode(attributes.get(BrokerProbeWire.COMMITS)))
        .containsExactly("95-99@1700000000000002", "100-104@1700000000000900");
    byte[] followers =
        attributes.get(BrokerProbeWire.COMMIT_FOLLOWERS).getValue().getBytesValue().toByteArray();
    assertThat(BrokerProbeWire.decodeFollowers(followers, 0, followers.length))
        .containsExactly(BrokerProbeWire.NO_FOLLOWER, 3);
    byte[] requests =
        attributes.get(BrokerProbeWire.APPEND_REQUESTS).getValue().getBytesValue().toByteArray();
    assertThat(BrokerProbeWire.decodeRequests(requests, 0, requests.length))
        .containsExactly(1_250, 80);
    assertThat(appends.isEmpty()).isTrue();
    assertThat(commits.isEmpty()).isTrue();
    // A partition without transactions: no stable ranges; the resource says the probe looked.
    assertThat(attributes).doesNotContainKeys(BrokerProbeWire.STABLES, BrokerProbeWire.STABLE_FROM);
    assertThat(resource.get(BrokerProbeWire.READS_STABLE_OFFSET).getValue().getIntValue())
        .isEqualTo(1);
  }

  @Test
  void aTransactionalPartitionCarriesItsStableRangesAndWhereTheyStart() throws Exception {
    LogsEncoder encoder = new LogsEncoder("kafka-broker", 0x1234L, "1.0");
    RangeList commits = new RangeList(10, 0, true);
    commits.add(100, 109, 1_700_000_000_000_002L);
    RangeList stables = new RangeList(10, 0);
    stables.add(90, 109, 1_700_000_000_000_050L);

    encoder.begin(2, 1_700_000_000_001_000L, 0, Long.MIN_VALUE, 0);
    encoder.add("orders", 3, 11, new RangeList(10, 0), commits, stables, 90, 1L);
    LogRecord record =
        ExportLogsServiceRequest.parseFrom(encoder.finish())
            .getResourceLogs(0)
            .getScopeLogs(0)
            .getLogRecords(0);

    Map<String, KeyValue> attributes = byKey(record.getAttributesList());
    assertThat(decode(attributes.get(BrokerProbeWire.STABLES)))
        .containsExactly("90-109@1700000000000050");
    assertThat(attributes.get(BrokerProbeWire.STABLE_FROM).getValue().getIntValue()).isEqualTo(90);
    assertThat(stables.isEmpty()).isTrue();
  }

  @Test
  void theEncoderIsReusedFromOneRequestToTheNext() throws Exception {
    LogsEncoder encoder = new LogsEncoder("kafka-broker", 1, "1.0");
    for (int i = 0; i < 2; i++) {
      RangeList appends = new RangeList(10, 0);
      appends.add(i, i, 5);
      encoder.begin(1, 10, 0, Long.MIN_VALUE, 0);
      encoder.add("t", i, 0, appends, new RangeList(10, 0), 1);
      ExportLogsServiceRequest request = ExportLogsServiceRequest.parseFrom(encoder.finish());
      assertThat(request.getResourceLogs(0).getScopeLogs(0).getLogRecordsCount()).isEqualTo(1);
      assertThat(byKey(request.getResourceLogs(0).getResource().getAttributesList()))
          .doesNotContainKey("klat.clock.collector_offset_ns");
    }
  }

  private static Map<String, KeyValue> byKey(List<KeyValue> attributes) {
    Map<String, KeyValue> map = new HashMap<>();
    for (KeyValue kv : attributes) {
      map.put(kv.getKey(), kv);
    }
    return map;
  }

  private static List<String> decode(KeyValue kv) {
    byte[] bytes = kv.getValue().getBytesValue().toByteArray();
    List<String> out = new ArrayList<>();
    BrokerProbeWire.decodeRanges(
        bytes,
        0,
        bytes.length,
        (first, last, earliest, latest) ->
            out.add(
                first + "-" + last + "@" + (earliest == latest ? "" : earliest + "..") + latest));
    return out;
  }
}
