package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Span attribute keys, metric names and tag keys are the wire: these tests pin them. */
class NamesTest {

  private static <T> List<T> publicConstants(Class<?> owner, Class<T> type) throws Exception {
    List<T> constants = new ArrayList<>();
    for (Field field : owner.getDeclaredFields()) {
      int modifiers = field.getModifiers();
      if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && field.getType() == type) {
        constants.add(type.cast(field.get(null)));
      }
    }
    return constants;
  }

  @Test
  void spanAttributeNamesAreUniqueAndAllListed() throws Exception {
    List<String> names = new ArrayList<>();
    for (AttributeDef attribute : SpanAttributes.all()) {
      names.add(attribute.name());
      assertThat(attribute.name()).matches("[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+");
      assertThat(attribute.description()).as(attribute.name()).isNotBlank().endsWith(".");
      assertThat(attribute.type()).isNotNull();
      assertThat(attribute.unit()).isNotNull();
    }
    assertThat(names).doesNotHaveDuplicates();
    List<AttributeDef> constants =
        new ArrayList<>(publicConstants(SpanAttributes.class, AttributeDef.class));
    constants.addAll(publicConstants(EvidenceAttributes.class, AttributeDef.class));
    assertThat(SpanAttributes.all()).containsExactlyInAnyOrderElementsOf(constants);
  }

  @Test
  void spanAttributeNamesArePinned() {
    Map<String, AttributeDef.Type> expected = new LinkedHashMap<>();
    expected.put("klat.send.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.drain.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.drain.first.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.ack.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.append.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.commit.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.fetch_request.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.fetch_response.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.poll.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("messaging.system", AttributeDef.Type.STRING);
    expected.put("messaging.destination.name", AttributeDef.Type.STRING);
    expected.put("messaging.destination.partition.id", AttributeDef.Type.STRING);
    expected.put("messaging.kafka.offset", AttributeDef.Type.LONG);
    expected.put("messaging.consumer.group.name", AttributeDef.Type.STRING);
    expected.put("messaging.client.id", AttributeDef.Type.STRING);
    expected.put("klat.producer.attempts", AttributeDef.Type.LONG);
    expected.put("klat.producer.retry_error", AttributeDef.Type.STRING);
    expected.put("klat.producer.acks", AttributeDef.Type.STRING);
    expected.put("klat.batch.record_count", AttributeDef.Type.LONG);
    expected.put("klat.batch.size_bytes", AttributeDef.Type.LONG);
    expected.put("klat.batch.compression", AttributeDef.Type.STRING);
    expected.put("klat.leader.node_id", AttributeDef.Type.LONG);
    expected.put("klat.record.timestamp_ms", AttributeDef.Type.LONG);
    expected.put("klat.record.timestamp_type", AttributeDef.Type.STRING);
    expected.put("klat.partition.high_watermark", AttributeDef.Type.LONG);
    expected.put("klat.consumer.fetch_min_bytes", AttributeDef.Type.LONG);
    expected.put("klat.fetch_response.read_promptly", AttributeDef.Type.BOOLEAN);
    expected.put("klat.record.uncommitted_time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.error.type", AttributeDef.Type.STRING);
    expected.put("klat.instance.id", AttributeDef.Type.LONG);
    expected.put("klat.capture", AttributeDef.Type.STRING);
    expected.put("klat.tail.threshold_ns", AttributeDef.Type.LONG);
    expected.put("klat.link.topic", AttributeDef.Type.STRING);
    expected.put("klat.link.partition", AttributeDef.Type.LONG);
    expected.put("klat.link.offset", AttributeDef.Type.LONG);
    expected.put("klat.link.group", AttributeDef.Type.STRING);
    expected.put("klat.link.count", AttributeDef.Type.LONG);
    expected.put("klat.producer.transactional", AttributeDef.Type.LONG);
    expected.put("klat.txn_commit.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.visible.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.consumer.isolation_level", AttributeDef.Type.STRING);
    expected.put("klat.segment", AttributeDef.Type.STRING);
    expected.put("klat.quality", AttributeDef.Type.STRING);
    expected.put("klat.method", AttributeDef.Type.STRING);
    expected.put("klat.clock.offset_ns", AttributeDef.Type.LONG);
    expected.put("klat.clock.uncertainty_ns", AttributeDef.Type.LONG);
    expected.put("klat.clock.collector_offset_ns", AttributeDef.Type.LONG);
    expected.put("klat.clock.collector_uncertainty_ns", AttributeDef.Type.LONG);
    expected.put("klat.produce_request.queue_ns", AttributeDef.Type.LONG);
    expected.put("klat.produce_request.local_ns", AttributeDef.Type.LONG);
    expected.put("klat.consumer.group_type", AttributeDef.Type.STRING);
    expected.put("klat.share.delivery_count", AttributeDef.Type.LONG);
    expected.put("klat.share.acknowledge.time_unix_nano", AttributeDef.Type.LONG);
    expected.put("klat.share.acknowledge.type", AttributeDef.Type.STRING);
    expected.put("klat.share.acknowledge.error", AttributeDef.Type.STRING);
    expected.put("klat.producer.linger_ms", AttributeDef.Type.LONG);
    expected.put("klat.producer.batch_size", AttributeDef.Type.LONG);
    expected.put("klat.producer.buffer_memory", AttributeDef.Type.LONG);
    expected.put("klat.producer.max_in_flight", AttributeDef.Type.LONG);
    expected.put("klat.producer.append_wait_ns", AttributeDef.Type.LONG);
    expected.put("klat.producer.metadata_wait_ms", AttributeDef.Type.LONG);
    expected.put("klat.producer.request_in_flight", AttributeDef.Type.LONG);
    expected.put("klat.producer.request_batches", AttributeDef.Type.LONG);
    expected.put("klat.consumer.poll_gap_ns", AttributeDef.Type.LONG);
    expected.put("klat.consumer.previous_poll_records", AttributeDef.Type.LONG);
    expected.put("klat.consumer.fetch_max_wait_ms", AttributeDef.Type.LONG);
    expected.put("klat.consumer.max_poll_records", AttributeDef.Type.LONG);
    expected.put("klat.consumer.assigned_partitions", AttributeDef.Type.LONG);

    Map<String, AttributeDef.Type> actual = new LinkedHashMap<>();
    for (AttributeDef attribute : SpanAttributes.all()) {
      actual.put(attribute.name(), attribute.type());
    }
    assertThat(actual).containsExactlyEntriesOf(expected);
    assertThat(SpanAttributes.BATCH_SIZE_BYTES.unit()).isEqualTo("By");
    assertThat(SpanAttributes.RECORD_TIMESTAMP_MS.unit()).isEqualTo("ms");
    assertThat(SpanAttributes.CONSUMER_FETCH_MIN_BYTES.unit()).isEqualTo("By");
    assertThat(EvidenceAttributes.CONSUMER_FETCH_MAX_WAIT_MS.unit()).isEqualTo("ms");
    assertThat(SpanAttributes.CLOCK_OFFSET_NANOS.unit()).isEqualTo("ns");
    assertThat(SpanAttributes.MESSAGING_SYSTEM_KAFKA).isEqualTo("kafka");
  }

  @Test
  void everyInstantHasItsOwnTimeAttributeInNanoseconds() {
    List<AttributeDef> times = new ArrayList<>();
    for (TimePoint point : TimePoint.values()) {
      AttributeDef time = SpanAttributes.timeOf(point);
      times.add(time);
      assertThat(time.name()).endsWith(".time_unix_nano");
      assertThat(time.type()).isEqualTo(AttributeDef.Type.LONG);
      assertThat(time.unit()).isEqualTo("ns");
      assertThat(time.description()).startsWith(point.symbol() + ": ");
    }
    assertThat(times).doesNotHaveDuplicates().doesNotContain(SpanAttributes.DRAIN_FIRST_TIME);
    assertThat(SpanAttributes.timeOf(TimePoint.DRAIN)).isSameAs(SpanAttributes.DRAIN_TIME);
    assertThat(SpanAttributes.timeOf(TimePoint.FETCH_REQUEST).name())
        .isEqualTo("klat.fetch_request.time_unix_nano");
  }

  @Test
  void metricNamesAreUniqueAndAllListed() throws Exception {
    List<String> names = new ArrayList<>();
    List<String> prometheusNames = new ArrayList<>();
    for (MetricDef metric : MetricDef.all()) {
      names.add(metric.name());
      prometheusNames.add(metric.prometheusName());
      assertThat(metric.name()).matches("klat(\\.[a-z0-9]+)+");
      assertThat(metric.description()).as(metric.name()).isNotBlank().endsWith(".");
    }
    assertThat(names).doesNotHaveDuplicates();
    assertThat(prometheusNames).doesNotHaveDuplicates();
    assertThat(MetricDef.all())
        .containsExactlyInAnyOrderElementsOf(publicConstants(MetricDef.class, MetricDef.class));
  }

  @Test
  void metricNamesInstrumentsUnitsAndPrometheusNamesArePinned() {
    List<String> actual = new ArrayList<>();
    for (MetricDef metric : MetricDef.all()) {
      actual.add(
          metric.name()
              + " "
              + metric.instrument()
              + " "
              + metric.unit().otelUnit()
              + " "
              + metric.prometheusName()
              + " "
              + metric.tagKeys());
    }
    assertThat(actual)
        .containsExactly(
            "klat.e2e.latency HISTOGRAM s klat_e2e_latency_seconds [topic, group]",
            "klat.segment.latency HISTOGRAM s klat_segment_latency_seconds"
                + " [topic, group, broker, segment, quality, capture]",
            "klat.transaction.wait HISTOGRAM s klat_transaction_wait_seconds [topic, group]",
            "klat.share.redeliveries COUNTER 1 klat_share_redeliveries_total [topic, group, cause]",
            "klat.share.records COUNTER 1 klat_share_records_total [topic, group]",
            "klat.share.redelivery HISTOGRAM s klat_share_redelivery_seconds [topic, group]",
            "klat.producer.produce.latency HISTOGRAM s klat_producer_produce_latency_seconds"
                + " [topic, client_id]",
            "klat.producer.latency HISTOGRAM s klat_producer_latency_seconds [topic, client_id]",
            "klat.consumer.fetch.latency HISTOGRAM s klat_consumer_fetch_latency_seconds"
                + " [topic, group]",
            "klat.consumer.buffer.latency HISTOGRAM s klat_consumer_buffer_latency_seconds"
                + " [topic, group]",
            "klat.consumer.lag.time GAUGE s klat_consumer_lag_time_seconds"
                + " [topic, group, partition]",
            "klat.consumer.share.redeliveries COUNTER 1 klat_consumer_share_redeliveries_total"
                + " [topic, group]",
            "klat.agent.share.spans.unacknowledged COUNTER 1"
                + " klat_agent_share_spans_unacknowledged_total [reason]",
            "klat.agent.headers.invalid COUNTER 1 klat_agent_headers_invalid_total [reason]",
            "klat.agent.durations.clamped COUNTER 1 klat_agent_durations_clamped_total [instant]",
            "klat.producer.records.failed COUNTER 1 klat_producer_records_failed_total"
                + " [topic, client_id, reason]",
            "klat.agent.export.spans.dropped COUNTER 1 klat_agent_export_spans_dropped_total []",
            "klat.agent.export.spans.exported COUNTER 1 klat_agent_export_spans_exported_total []",
            "klat.agent.export.requests.failed COUNTER 1"
                + " klat_agent_export_requests_failed_total [reason]",
            "klat.agent.export.series.overflow COUNTER 1"
                + " klat_agent_export_series_overflow_total []",
            "klat.producer.tail.records.flagged COUNTER 1"
                + " klat_producer_tail_records_flagged_total [topic, client_id]",
            "klat.consumer.tail.records.flagged COUNTER 1"
                + " klat_consumer_tail_records_flagged_total [topic, group]",
            "klat.agent.tail.spans.exported COUNTER 1 klat_agent_tail_spans_exported_total []",
            "klat.agent.tail.spans.dropped COUNTER 1 klat_agent_tail_spans_dropped_total [reason]",
            "klat.agent.transaction.spans.unpaired COUNTER 1"
                + " klat_agent_transaction_spans_unpaired_total [reason]",
            "klat.agent.link.forwarded.evicted COUNTER 1"
                + " klat_agent_link_forwarded_evicted_total []",
            "klat.collector.spans.received COUNTER 1 klat_collector_spans_received_total []",
            "klat.collector.breakdowns.joined COUNTER 1 klat_collector_breakdowns_joined_total []",
            "klat.collector.spans.unjoined COUNTER 1 klat_collector_spans_unjoined_total []",
            "klat.collector.spans.dropped COUNTER 1 klat_collector_spans_dropped_total []",
            "klat.collector.instants.clamped COUNTER 1 klat_collector_instants_clamped_total []",
            "klat.collector.requests.rejected COUNTER 1 klat_collector_requests_rejected_total"
                + " [reason]",
            "klat.collector.otel.spans COUNTER 1 klat_collector_otel_spans_total [outcome]",
            "klat.collector.otel.join COUNTER 1 klat_collector_otel_join_total [outcome]",
            "klat.collector.auth.requests COUNTER 1 klat_collector_auth_requests_total"
                + " [listener, result, token]",
            "klat.collector.reload.failures COUNTER 1 klat_collector_reload_failures_total"
                + " [setting]",
            "klat.collector.broker.up GAUGE 1 klat_collector_broker_up [broker]",
            "klat.collector.broker.scrape.errors COUNTER 1"
                + " klat_collector_broker_scrape_errors_total [broker]",
            "klat.collector.broker.scrape.age GAUGE s klat_collector_broker_scrape_age_seconds"
                + " [broker]",
            "klat.clock.offset GAUGE s klat_clock_offset_seconds [from_host, to_host]",
            "klat.diagnosis.tail.share GAUGE 1 klat_diagnosis_tail_share"
                + " [topic, group, segment, knob]",
            "klat.pipeline.latency HISTOGRAM s klat_pipeline_latency_seconds [pipeline]",
            "klat.pipeline.hop.latency HISTOGRAM s klat_pipeline_hop_latency_seconds"
                + " [pipeline, hop, segment]",
            "klat.pipeline.evictions COUNTER 1 klat_pipeline_evictions_total []",
            "klat.client.telemetry.record.queue.time GAUGE s"
                + " klat_client_telemetry_record_queue_time_seconds"
                + " [client_id, client_software, principal, role, stat]",
            "klat.client.telemetry.request.latency GAUGE s"
                + " klat_client_telemetry_request_latency_seconds"
                + " [client_id, client_software, principal, role, stat]",
            "klat.client.telemetry.fetch.latency GAUGE s"
                + " klat_client_telemetry_fetch_latency_seconds"
                + " [client_id, client_software, principal, role, stat]",
            "klat.client.telemetry.commit.latency GAUGE s"
                + " klat_client_telemetry_commit_latency_seconds"
                + " [client_id, client_software, principal, role, stat]",
            "klat.collector.client.telemetry.payloads COUNTER 1"
                + " klat_collector_client_telemetry_payloads_total [outcome]",
            "klat.collector.client.telemetry.evictions COUNTER 1"
                + " klat_collector_client_telemetry_evictions_total [reason]",
            "klat.collector.client.telemetry.instances GAUGE 1"
                + " klat_collector_client_telemetry_instances []");
  }

  @Test
  void everyTagKeyIsATagKeysConstant() throws Exception {
    List<String> constants = publicConstants(TagKeys.class, String.class);
    assertThat(constants).doesNotHaveDuplicates();
    for (MetricDef metric : MetricDef.all()) {
      assertThat(constants).as(metric.name()).containsAll(metric.tagKeys());
      assertThat(metric.tagKeys()).as(metric.name()).doesNotHaveDuplicates();
    }
    for (String key : constants) {
      assertThat(key).matches("[a-z]+(_[a-z]+)*");
    }
  }

  @Test
  void histogramsExposeBucketCountAndSumSeries() {
    assertThat(MetricDef.E2E_LATENCY.prometheusSeriesNames())
        .containsExactly(
            "klat_e2e_latency_seconds",
            "klat_e2e_latency_seconds_bucket",
            "klat_e2e_latency_seconds_count",
            "klat_e2e_latency_seconds_sum");
    assertThat(MetricDef.AGENT_HEADERS_INVALID.prometheusSeriesNames())
        .containsExactly("klat_agent_headers_invalid_total");
    assertThat(MetricDef.CLOCK_OFFSET.prometheusSeriesNames())
        .containsExactly("klat_clock_offset_seconds");
  }

  @Test
  void prometheusConversionDoesNotRepeatSuffixes() {
    assertThat(PrometheusNames.of("a.size.bytes", MetricDef.Instrument.GAUGE, MetricDef.Unit.BYTES))
        .isEqualTo("a_size_bytes");
    assertThat(
            PrometheusNames.of(
                "a.requests.total", MetricDef.Instrument.COUNTER, MetricDef.Unit.NONE))
        .isEqualTo("a_requests_total");
    assertThat(
            PrometheusNames.of("a.bytes.sent", MetricDef.Instrument.COUNTER, MetricDef.Unit.BYTES))
        .isEqualTo("a_bytes_sent_bytes_total");
  }

  @Test
  void unitsCarryTheirOtelAndPrometheusSpellings() {
    assertThat(MetricDef.Unit.SECONDS.otelUnit()).isEqualTo("s");
    assertThat(MetricDef.Unit.SECONDS.prometheusSuffix()).isEqualTo("seconds");
    assertThat(MetricDef.Unit.BYTES.otelUnit()).isEqualTo("By");
    assertThat(MetricDef.Unit.BYTES.prometheusSuffix()).isEqualTo("bytes");
    assertThat(MetricDef.Unit.NONE.otelUnit()).isEqualTo("1");
    assertThat(MetricDef.Unit.NONE.prometheusSuffix()).isEmpty();
  }
}
