package dev.klat.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The definition of one metric klat emits, and the single list of them. Immutable.
 *
 * <p>Names are lowercase dotted words with the base unit kept out of the name (Micrometer and
 * OpenTelemetry style); {@link #prometheusName()} gives the name a Prometheus exporter produces
 * from it. Durations are in seconds. Tags are low-cardinality; their keys are {@link TagKeys}
 * constants.
 */
public final class MetricDef {

  /** The kind of instrument. */
  public enum Instrument {
    /** A distribution of values, exported to Prometheus as a histogram. */
    HISTOGRAM,
    /** A monotonic count, exported to Prometheus with the {@code _total} suffix. */
    COUNTER,
    /** A value sampled at collection time. */
    GAUGE
  }

  /** The unit of a metric's values. */
  public enum Unit {
    /** Seconds: OpenTelemetry unit {@code s}, Prometheus suffix {@code seconds}. */
    SECONDS("s", "seconds"),
    /** Bytes: OpenTelemetry unit {@code By}, Prometheus suffix {@code bytes}. */
    BYTES("By", "bytes"),
    /** Dimensionless (counts): OpenTelemetry unit {@code 1}, no Prometheus suffix. */
    NONE("1", "");

    private final String otelUnit;
    private final String prometheusSuffix;

    Unit(String otelUnit, String prometheusSuffix) {
      this.otelUnit = otelUnit;
      this.prometheusSuffix = prometheusSuffix;
    }

    /**
     * Returns the unit in the UCUM notation OpenTelemetry uses.
     *
     * @return {@code "s"}, {@code "By"} or {@code "1"}
     */
    public String otelUnit() {
      return otelUnit;
    }

    /**
     * Returns the suffix a Prometheus exporter appends to the metric name for this unit.
     *
     * @return {@code "seconds"}, {@code "bytes"}, or {@code ""} for no suffix
     */
    public String prometheusSuffix() {
      return prometheusSuffix;
    }
  }

  /**
   * {@code klat.e2e.latency}: end-to-end latency {@code P - S}, per topic and consumer group. Every
   * record contributes from its record timestamp, sampled records from {@code S}.
   */
  public static final MetricDef E2E_LATENCY =
      latency(
          "klat.e2e.latency",
          "End-to-end latency P - S per record and consumer group (from the record timestamp for"
              + " every record, from S for sampled ones).",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /**
   * {@code klat.segment.latency}: one segment of the latency model, from the joined breakdowns,
   * tagged with the segment's id and quality, the node id of the partition's leader broker (publish
   * and commit happen there) and how the record was captured ({@link Capture}): quantiles read
   * {@code capture="sampled"}, since tail records are slow by selection.
   */
  public static final MetricDef SEGMENT_LATENCY =
      latency(
          "klat.segment.latency",
          "Latency of one segment of the latency model (produce, publish, commit, catch-up, fetch)"
              + " for sampled records (capture=sampled) and tail records (capture=tail).",
          TagKeys.TOPIC,
          TagKeys.GROUP,
          TagKeys.BROKER,
          TagKeys.SEGMENT,
          TagKeys.QUALITY,
          TagKeys.CAPTURE);

  /**
   * {@code klat.transaction.wait}: the transaction part of commit, {@code V - H} (section 9 of the
   * latency model), per topic and consumer group, for the sampled records written in a transaction
   * and read by a {@code read_committed} group (0 where the last stable offset moved with the high
   * watermark); no series for other records.
   */
  public static final MetricDef TRANSACTION_WAIT =
      latency(
          "klat.transaction.wait",
          "Transaction part of commit V - H: how long a committed record written in a transaction"
              + " waited for its last stable offset before a read_committed group could read it.",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /**
   * {@code klat.share.redeliveries}: earlier deliveries of the sampled records a share group read
   * (section 11 of the latency model), by what ended each ({@link TagKeys#CAUSE}: {@code
   * lock-timeout}, {@code release}, {@code reject}, {@code renew}, {@code unknown}), counted when
   * the record's deliveries joined.
   */
  public static final MetricDef SHARE_REDELIVERIES =
      counter(
          "klat.share.redeliveries",
          "Earlier deliveries of sampled records to a share group, by what ended each"
              + " (lock-timeout, release, reject, renew, unknown).",
          TagKeys.TOPIC,
          TagKeys.GROUP,
          TagKeys.CAUSE);

  /**
   * {@code klat.share.records}: the sampled records a share group read whose deliveries joined, so
   * that redeliveries can be taken per record.
   */
  public static final MetricDef SHARE_RECORDS =
      counter(
          "klat.share.records",
          "Sampled records of a share group whose deliveries joined into one breakdown.",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /**
   * {@code klat.share.redelivery}: the redelivery part of catch-up (section 11 of the latency
   * model), from the first delivery's acquisition to the counted delivery's fetch request, for the
   * sampled redelivered records whose first delivery was seen.
   */
  public static final MetricDef SHARE_REDELIVERY =
      latency(
          "klat.share.redelivery",
          "Redelivery part of catch-up: from a record's first acquisition by a share group to the"
              + " fetch of the delivery counted, for redelivered records whose first delivery was"
              + " seen.",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /** {@code klat.producer.produce.latency}: the produce segment {@code D - S}, every record. */
  public static final MetricDef PRODUCER_PRODUCE_LATENCY =
      latency(
          "klat.producer.produce.latency",
          "Produce segment D - S: from send() until the batch was drained, for every record.",
          TagKeys.TOPIC,
          TagKeys.CLIENT_ID);

  /**
   * {@code klat.producer.latency}: producer latency {@code A - S}, every record; what {@code
   * kafka-producer-perf-test} reports.
   */
  public static final MetricDef PRODUCER_LATENCY =
      latency(
          "klat.producer.latency",
          "Producer latency A - S: from send() until the acknowledgement, for every record.",
          TagKeys.TOPIC,
          TagKeys.CLIENT_ID);

  /** {@code klat.consumer.fetch.latency}: fetch round trip {@code R - F}, every record. */
  public static final MetricDef CONSUMER_FETCH_LATENCY =
      latency(
          "klat.consumer.fetch.latency",
          "Fetch round trip R - F of the fetch that returned the record, for every record.",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /** {@code klat.consumer.buffer.latency}: wait in the fetch buffer {@code P - R}, every record. */
  public static final MetricDef CONSUMER_BUFFER_LATENCY =
      latency(
          "klat.consumer.buffer.latency",
          "Time P - R the record waited in the consumer's fetch buffer until poll() returned it.",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /**
   * {@code klat.consumer.lag.time}: consumer lag in time, per partition: the age of the oldest
   * committed record not yet returned by {@code poll()}.
   */
  public static final MetricDef CONSUMER_LAG_TIME =
      new MetricDef(
          "klat.consumer.lag.time",
          Instrument.GAUGE,
          Unit.SECONDS,
          "Age of the oldest committed record of the partition not yet returned by poll().",
          TagKeys.TOPIC,
          TagKeys.GROUP,
          TagKeys.PARTITION);

  /**
   * {@code klat.consumer.share.redeliveries}: deliveries a share consumer received with a delivery
   * count above 1 (section 11 of the latency model), per topic and share group: each is a record
   * that an earlier delivery did not finish.
   */
  public static final MetricDef CONSUMER_SHARE_REDELIVERIES =
      counter(
          "klat.consumer.share.redeliveries",
          "Records a share consumer received again (delivery count above 1), per topic and share"
              + " group.",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /**
   * {@code klat.agent.share.spans.unacknowledged}: spans of sampled share-group deliveries the
   * agent exported without the outcome of their acknowledgement, by reason: {@code redelivered}
   * (the same consumer received the record again first), {@code timeout} (no outcome within 60 s),
   * {@code overflow} (the consumer already held as many deliveries waiting as it may) and {@code
   * closed} (the consumer was closed first).
   */
  public static final MetricDef AGENT_SHARE_SPANS_UNACKNOWLEDGED =
      counter(
          "klat.agent.share.spans.unacknowledged",
          "Share-group delivery spans exported without their acknowledgement's outcome, by reason.",
          TagKeys.REASON);

  /**
   * {@code klat.agent.headers.invalid}: timing headers the consumer agent could not use, by {@link
   * TimingHeader.DecodeError#id()}, or by the consumer agent's own reasons {@code duplicate} (two
   * timing headers), {@code traceparent-invalid}, {@code traceparent-missing} and {@code
   * traceparent-duplicate} (the trace context of a sampled record; its span starts a fresh trace).
   */
  public static final MetricDef AGENT_HEADERS_INVALID =
      counter(
          "klat.agent.headers.invalid",
          "Timing headers the consumer agent could not use, by reason.",
          TagKeys.REASON);

  /**
   * {@code klat.agent.durations.clamped}: durations the agent measured negative and clamped to 0,
   * by the {@link TimePoint#symbol()} of the instant that ended the duration.
   */
  public static final MetricDef AGENT_DURATIONS_CLAMPED =
      counter(
          "klat.agent.durations.clamped",
          "Durations the agent measured negative and clamped to 0, by the instant ending them.",
          TagKeys.INSTANT);

  /**
   * {@code klat.producer.records.failed}: records whose send failed (the callback got an exception:
   * expired in the accumulator, retries exhausted, rejected by the broker), by the exception's
   * simple class name. Failed records never count as latencies.
   */
  public static final MetricDef PRODUCER_RECORDS_FAILED =
      counter(
          "klat.producer.records.failed",
          "Records whose send failed, by exception type; they are not counted as latencies.",
          TagKeys.TOPIC,
          TagKeys.CLIENT_ID,
          TagKeys.REASON);

  /**
   * {@code klat.agent.export.spans.dropped}: sampled spans the agent dropped, because its export
   * queue was full (the collector down or slow) or their export failed for good.
   */
  public static final MetricDef AGENT_EXPORT_SPANS_DROPPED =
      counter(
          "klat.agent.export.spans.dropped",
          "Sampled spans the agent dropped: export queue full, or export failed for good.");

  /** {@code klat.agent.export.spans.exported}: spans the agent's OTLP endpoint accepted. */
  public static final MetricDef AGENT_EXPORT_SPANS_EXPORTED =
      counter("klat.agent.export.spans.exported", "Spans the OTLP endpoint accepted.");

  /**
   * {@code klat.agent.export.requests.failed}: OTLP export requests that failed, by reason: {@code
   * unavailable} (no answer, or 429/502/503/504), {@code rejected} (another status), {@code
   * unauthorized} (401), {@code forbidden} (403), and the TLS failures {@code tls_untrusted},
   * {@code tls_expired}, {@code tls_hostname}, {@code tls_client_certificate}, {@code tls_not_tls},
   * {@code tls_handshake}, {@code tls_setup} (the agents' {@code FailureReason}).
   */
  public static final MetricDef AGENT_EXPORT_REQUESTS_FAILED =
      counter(
          "klat.agent.export.requests.failed",
          "OTLP export requests that failed, by reason.",
          TagKeys.REASON);

  /**
   * {@code klat.agent.export.series.overflow}: instruments the agent folded into the {@code _other}
   * series because it already kept as many series as it may.
   */
  public static final MetricDef AGENT_EXPORT_SERIES_OVERFLOW =
      counter(
          "klat.agent.export.series.overflow",
          "Instruments folded into the _other series because the series limit was reached.");

  /**
   * {@code klat.producer.tail.records.flagged}: produced records whose {@code A - S} was above the
   * topic's tail threshold ({@code klat.tail.producer-threshold}), whether or not their tail span
   * was kept.
   */
  public static final MetricDef PRODUCER_TAIL_RECORDS_FLAGGED =
      counter(
          "klat.producer.tail.records.flagged",
          "Produced records whose A - S was above the topic's tail threshold.",
          TagKeys.TOPIC,
          TagKeys.CLIENT_ID);

  /**
   * {@code klat.consumer.tail.records.flagged}: consumed records whose {@code P - timestamp} was
   * above the tail threshold of their topic and group ({@code klat.tail.consumer-threshold}),
   * whether or not their tail span was kept.
   */
  public static final MetricDef CONSUMER_TAIL_RECORDS_FLAGGED =
      counter(
          "klat.consumer.tail.records.flagged",
          "Consumed records whose P - timestamp was above the topic and group's tail threshold.",
          TagKeys.TOPIC,
          TagKeys.GROUP);

  /** {@code klat.agent.tail.spans.exported}: tail spans the agent's OTLP endpoint accepted. */
  public static final MetricDef AGENT_TAIL_SPANS_EXPORTED =
      counter("klat.agent.tail.spans.exported", "Tail spans the OTLP endpoint accepted.");

  /**
   * {@code klat.agent.tail.spans.dropped}: flagged records whose tail span the agent did not
   * export, by reason: {@code cap} ({@code klat.tail.max-per-second}: not kept by the client's fair
   * share), {@code queue_full} (the tail spans' share of the export queue was full) and {@code
   * export_failed} (their export failed for good).
   */
  public static final MetricDef AGENT_TAIL_SPANS_DROPPED =
      counter(
          "klat.agent.tail.spans.dropped",
          "Tail spans not exported, by reason: over the cap, export queue full, export failed.",
          TagKeys.REASON);

  /**
   * {@code klat.agent.transaction.spans.unpaired}: spans of records a transactional producer sent
   * that the agent exported without the end of their transaction ({@code C} or the abort), by
   * reason: {@code overflow} (the producer already held as many spans waiting for their
   * transaction's end as it may) and {@code closed} (the producer was closed before the transaction
   * ended).
   */
  public static final MetricDef AGENT_TRANSACTION_SPANS_UNPAIRED =
      counter(
          "klat.agent.transaction.spans.unpaired",
          "Transactional spans exported without their transaction's end, by reason.",
          TagKeys.REASON);

  /**
   * {@code klat.agent.link.forwarded.evicted}: consumed records whose entry in the agent's bounded
   * map of forwarded trace contexts (header-forwarding applications such as Kafka Streams) was
   * pushed out by newer ones before an output record named them (section 9 of the latency model).
   */
  public static final MetricDef AGENT_LINK_FORWARDED_EVICTED =
      counter(
          "klat.agent.link.forwarded.evicted",
          "Sampled consumed records dropped from the bounded map of forwarded trace contexts.");

  /** {@code klat.collector.spans.received}: spans the collector accepted. */
  public static final MetricDef COLLECTOR_SPANS_RECEIVED =
      counter("klat.collector.spans.received", "Spans the collector received.");

  /** {@code klat.collector.breakdowns.joined}: breakdowns computed from joined spans. */
  public static final MetricDef COLLECTOR_BREAKDOWNS_JOINED =
      counter(
          "klat.collector.breakdowns.joined",
          "Breakdowns computed from a joined producer and consumer span.");

  /** {@code klat.collector.spans.unjoined}: spans whose partner did not arrive in time. */
  public static final MetricDef COLLECTOR_SPANS_UNJOINED =
      counter(
          "klat.collector.spans.unjoined",
          "Spans whose partner did not arrive within the join window.");

  /** {@code klat.collector.spans.dropped}: spans dropped before a join was attempted. */
  public static final MetricDef COLLECTOR_SPANS_DROPPED =
      counter(
          "klat.collector.spans.dropped",
          "Spans dropped before a join was attempted, for example because a buffer was full.");

  /** {@code klat.collector.instants.clamped}: instants moved by {@link Breakdown#compute}. */
  public static final MetricDef COLLECTOR_INSTANTS_CLAMPED =
      counter(
          "klat.collector.instants.clamped",
          "Instants clamped into the order of the latency model while computing breakdowns.");

  /** {@code klat.collector.requests.rejected}: export requests the collector rejected. */
  public static final MetricDef COLLECTOR_REQUESTS_REJECTED =
      counter(
          "klat.collector.requests.rejected",
          "Requests the collector rejected, by reason.",
          TagKeys.REASON);

  /**
   * {@code klat.collector.otel.spans}: spans of OpenTelemetry Kafka instrumentations (clients
   * without klat's agent, section 10 of the latency model), by what the collector made of them.
   */
  public static final MetricDef COLLECTOR_OTEL_SPANS =
      counter(
          "klat.collector.otel.spans",
          "Spans not klat's that the collector read as an OpenTelemetry Kafka instrumentation's,"
              + " by outcome.",
          TagKeys.OUTCOME);

  /**
   * {@code klat.collector.otel.join}: what the join made of OpenTelemetry instrumentations' record
   * spans (section 10 of the latency model), by outcome: breakdowns ({@code joined}, {@code
   * producer-only}, {@code consumer-only}) and spans ({@code superseded}, {@code unplaced}, ...).
   */
  public static final MetricDef COLLECTOR_OTEL_JOIN =
      counter(
          "klat.collector.otel.join",
          "What the join made of OpenTelemetry instrumentations' record spans, by outcome.",
          TagKeys.OUTCOME);

  /**
   * {@code klat.collector.auth.requests}: requests to a listener with tokens on, by listener,
   * result ({@code accepted}, {@code missing}, {@code malformed}, {@code unknown}) and, when
   * accepted, the token's name.
   */
  public static final MetricDef COLLECTOR_AUTH_REQUESTS =
      counter(
          "klat.collector.auth.requests",
          "Requests checked for a bearer token, by listener, result and accepted token's name.",
          TagKeys.LISTENER,
          TagKeys.RESULT,
          TagKeys.TOKEN);

  /**
   * {@code klat.collector.reload.failures}: changed TLS or tokens files the collector could not
   * load (it keeps the ones loaded before), by the setting that names them.
   */
  public static final MetricDef COLLECTOR_RELOAD_FAILURES =
      counter(
          "klat.collector.reload.failures",
          "Changed TLS or tokens files that could not be loaded; the loaded ones stay in use.",
          TagKeys.SETTING);

  /**
   * {@code klat.collector.broker.up}: 1 while the collector reads a broker's request metrics (its
   * last scrape succeeded and is recent), 0 while they are missing, stale or unreachable.
   */
  public static final MetricDef COLLECTOR_BROKER_UP =
      new MetricDef(
          "klat.collector.broker.up",
          Instrument.GAUGE,
          Unit.NONE,
          "1 while the collector reads the broker's request metrics, 0 while they are missing,"
              + " stale or unreachable.",
          TagKeys.BROKER);

  /** {@code klat.collector.broker.scrape.errors}: failed scrapes of a broker's request metrics. */
  public static final MetricDef COLLECTOR_BROKER_SCRAPE_ERRORS =
      counter(
          "klat.collector.broker.scrape.errors",
          "Scrapes of the broker's request metrics that failed.",
          TagKeys.BROKER);

  /**
   * {@code klat.collector.broker.scrape.age}: time since the last successful scrape of a broker's
   * request metrics (since the broker was configured or discovered, when none succeeded yet).
   */
  public static final MetricDef COLLECTOR_BROKER_SCRAPE_AGE =
      new MetricDef(
          "klat.collector.broker.scrape.age",
          Instrument.GAUGE,
          Unit.SECONDS,
          "Time since the last successful scrape of the broker's request metrics.",
          TagKeys.BROKER);

  /**
   * {@code klat.clock.offset}: the collector's estimate of the offset between two hosts' clocks:
   * the {@code to_host} clock minus the {@code from_host} clock, in seconds.
   */
  public static final MetricDef CLOCK_OFFSET =
      new MetricDef(
          "klat.clock.offset",
          Instrument.GAUGE,
          Unit.SECONDS,
          "Estimated offset of the to_host clock relative to the from_host clock.",
          TagKeys.FROM_HOST,
          TagKeys.TO_HOST);

  /**
   * {@code klat.diagnosis.tail.share}: the share of the p99 tail's mean end-to-end latency that a
   * diagnosis finding explains, over the collector's diagnosis window (0 to 1), per topic, group,
   * segment and knob; only the findings of the latest diagnosis are present.
   */
  public static final MetricDef DIAGNOSIS_TAIL_SHARE =
      new MetricDef(
          "klat.diagnosis.tail.share",
          Instrument.GAUGE,
          Unit.NONE,
          "Share of the p99 tail's mean end-to-end latency that the finding explains.",
          TagKeys.TOPIC,
          TagKeys.GROUP,
          TagKeys.SEGMENT,
          TagKeys.KNOB);

  /**
   * {@code klat.pipeline.latency}: a pipeline's end to end (section 9 of the latency model), {@code
   * P(r[n], g[n]) - S(r[1])} per complete chain, each final record once, per pipeline (at most
   * {@code pipeline.max-pipelines}).
   */
  public static final MetricDef PIPELINE_LATENCY =
      latency(
          "klat.pipeline.latency",
          "End-to-end latency of a pipeline: from the first record's send to the poll that returned"
              + " the last record to the last group, per complete chain of linked records.",
          TagKeys.PIPELINE);

  /**
   * {@code klat.pipeline.hop.latency}: one hop's segment of a pipeline (the five segments of its
   * record, and {@code processing}, the time in the application before it produced the next
   * record), per pipeline, hop index ("1".."n") and segment.
   */
  public static final MetricDef PIPELINE_HOP_LATENCY =
      latency(
          "klat.pipeline.hop.latency",
          "Latency of one segment of one hop of a pipeline: the five segments of the hop's record"
              + " and processing, the time in the application before it produced the next record.",
          TagKeys.PIPELINE,
          TagKeys.HOP,
          TagKeys.SEGMENT);

  /**
   * {@code klat.pipeline.evictions}: pipelines whose series left the collector's metrics to make
   * room for a new one beyond {@code pipeline.max-pipelines}.
   */
  public static final MetricDef PIPELINE_EVICTIONS =
      counter(
          "klat.pipeline.evictions",
          "Pipelines whose series were evicted to make room for a new one beyond"
              + " pipeline.max-pipelines.");

  /**
   * {@code klat.client.telemetry.record.queue.time}: a producer's own record queue time as it
   * pushed it through the broker (KIP-714 {@code
   * org.apache.kafka.producer.record.queue.time.avg|max}): the client's average or maximum over its
   * own metric window, not a per-record figure; per client id, software, principal and role (the
   * worst instance where several share them).
   */
  public static final MetricDef CLIENT_TELEMETRY_RECORD_QUEUE_TIME =
      clientAggregate(
          "klat.client.telemetry.record.queue.time",
          "Record queue time a producer reported of itself (KIP-714): the client's own average or"
              + " maximum over its metric window, not per record.");

  /**
   * {@code klat.client.telemetry.request.latency}: a producer's own produce request latency
   * (KIP-714 {@code org.apache.kafka.producer.request.latency.avg|max}), the client's aggregate.
   */
  public static final MetricDef CLIENT_TELEMETRY_REQUEST_LATENCY =
      clientAggregate(
          "klat.client.telemetry.request.latency",
          "Produce request latency a producer reported of itself (KIP-714): the client's own"
              + " average or maximum over its metric window, not per record.");

  /**
   * {@code klat.client.telemetry.fetch.latency}: a consumer's own fetch latency (KIP-714 {@code
   * org.apache.kafka.consumer.fetch.manager.fetch.latency.avg|max}), the client's aggregate.
   */
  public static final MetricDef CLIENT_TELEMETRY_FETCH_LATENCY =
      clientAggregate(
          "klat.client.telemetry.fetch.latency",
          "Fetch latency a consumer reported of itself (KIP-714): the client's own average or"
              + " maximum over its metric window, not per record.");

  /**
   * {@code klat.client.telemetry.commit.latency}: a consumer's own offset commit latency (KIP-714
   * {@code org.apache.kafka.consumer.coordinator.commit.latency.avg|max}), the client's aggregate.
   */
  public static final MetricDef CLIENT_TELEMETRY_COMMIT_LATENCY =
      clientAggregate(
          "klat.client.telemetry.commit.latency",
          "Offset commit latency a consumer reported of itself (KIP-714): the client's own average"
              + " or maximum over its metric window, not per record.");

  /**
   * {@code klat.collector.client.telemetry.payloads}: the clients' pushed metrics (KIP-714) the
   * collector received from the brokers' forwarder, one per client resource, by outcome ({@code
   * accepted}, {@code invalid}, {@code no-known-metrics}).
   */
  public static final MetricDef COLLECTOR_CLIENT_TELEMETRY_PAYLOADS =
      counter(
          "klat.collector.client.telemetry.payloads",
          "Client telemetry payloads (KIP-714, one per client resource) the collector received, by"
              + " outcome.",
          TagKeys.OUTCOME);

  /**
   * {@code klat.collector.client.telemetry.evictions}: client instances the collector stopped
   * showing, by reason ({@code max-instances}, {@code max-bytes}, {@code stale}).
   */
  public static final MetricDef COLLECTOR_CLIENT_TELEMETRY_EVICTIONS =
      counter(
          "klat.collector.client.telemetry.evictions",
          "Client instances (KIP-714) the collector stopped showing: evicted over"
              + " clients.max-instances or .max-bytes, or silent past .stale-after.",
          TagKeys.REASON);

  /** {@code klat.collector.client.telemetry.instances}: client instances the collector shows. */
  public static final MetricDef COLLECTOR_CLIENT_TELEMETRY_INSTANCES =
      new MetricDef(
          "klat.collector.client.telemetry.instances",
          Instrument.GAUGE,
          Unit.NONE,
          "Client instances (KIP-714) whose pushed telemetry the collector holds.");

  private static final List<MetricDef> ALL =
      Collections.unmodifiableList(
          Arrays.asList(
              E2E_LATENCY,
              SEGMENT_LATENCY,
              TRANSACTION_WAIT,
              SHARE_REDELIVERIES,
              SHARE_RECORDS,
              SHARE_REDELIVERY,
              PRODUCER_PRODUCE_LATENCY,
              PRODUCER_LATENCY,
              CONSUMER_FETCH_LATENCY,
              CONSUMER_BUFFER_LATENCY,
              CONSUMER_LAG_TIME,
              CONSUMER_SHARE_REDELIVERIES,
              AGENT_SHARE_SPANS_UNACKNOWLEDGED,
              AGENT_HEADERS_INVALID,
              AGENT_DURATIONS_CLAMPED,
              PRODUCER_RECORDS_FAILED,
              AGENT_EXPORT_SPANS_DROPPED,
              AGENT_EXPORT_SPANS_EXPORTED,
              AGENT_EXPORT_REQUESTS_FAILED,
              AGENT_EXPORT_SERIES_OVERFLOW,
              PRODUCER_TAIL_RECORDS_FLAGGED,
              CONSUMER_TAIL_RECORDS_FLAGGED,
              AGENT_TAIL_SPANS_EXPORTED,
              AGENT_TAIL_SPANS_DROPPED,
              AGENT_TRANSACTION_SPANS_UNPAIRED,
              AGENT_LINK_FORWARDED_EVICTED,
              COLLECTOR_SPANS_RECEIVED,
              COLLECTOR_BREAKDOWNS_JOINED,
              COLLECTOR_SPANS_UNJOINED,
              COLLECTOR_SPANS_DROPPED,
              COLLECTOR_INSTANTS_CLAMPED,
              COLLECTOR_REQUESTS_REJECTED,
              COLLECTOR_OTEL_SPANS,
              COLLECTOR_OTEL_JOIN,
              COLLECTOR_AUTH_REQUESTS,
              COLLECTOR_RELOAD_FAILURES,
              COLLECTOR_BROKER_UP,
              COLLECTOR_BROKER_SCRAPE_ERRORS,
              COLLECTOR_BROKER_SCRAPE_AGE,
              CLOCK_OFFSET,
              DIAGNOSIS_TAIL_SHARE,
              PIPELINE_LATENCY,
              PIPELINE_HOP_LATENCY,
              PIPELINE_EVICTIONS,
              CLIENT_TELEMETRY_RECORD_QUEUE_TIME,
              CLIENT_TELEMETRY_REQUEST_LATENCY,
              CLIENT_TELEMETRY_FETCH_LATENCY,
              CLIENT_TELEMETRY_COMMIT_LATENCY,
              COLLECTOR_CLIENT_TELEMETRY_PAYLOADS,
              COLLECTOR_CLIENT_TELEMETRY_EVICTIONS,
              COLLECTOR_CLIENT_TELEMETRY_INSTANCES));

  private final String name;
  private final Instrument instrument;
  private final Unit unit;
  private final String description;
  private final List<String> tagKeys;
  private final String prometheusName;

  private MetricDef(
      String name, Instrument instrument, Unit unit, String description, String... tagKeys) {
    this.name = name;
    this.instrument = instrument;
    this.unit = unit;
    this.description = description;
    this.tagKeys = Collections.unmodifiableList(Arrays.asList(tagKeys));
    this.prometheusName = PrometheusNames.of(name, instrument, unit);
  }

  private static MetricDef latency(String name, String description, String... tagKeys) {
    return new MetricDef(name, Instrument.HISTOGRAM, Unit.SECONDS, description, tagKeys);
  }

  // A client's own aggregate (KIP-714): a gauge in seconds, per client and stat (avg or max).
  private static MetricDef clientAggregate(String name, String description) {
    return new MetricDef(
        name,
        Instrument.GAUGE,
        Unit.SECONDS,
        description,
        TagKeys.CLIENT_ID,
        TagKeys.CLIENT_SOFTWARE,
        TagKeys.PRINCIPAL,
        TagKeys.ROLE,
        TagKeys.STAT);
  }

  private static MetricDef counter(String name, String description, String... tagKeys) {
    return new MetricDef(name, Instrument.COUNTER, Unit.NONE, description, tagKeys);
  }

  /**
   * Returns every metric klat defines, in declaration order.
   *
   * @return an unmodifiable list; names are unique
   */
  public static List<MetricDef> all() {
    return ALL;
  }

  /**
   * Returns the metric's name, as registered with Micrometer or OpenTelemetry.
   *
   * @return a lowercase dotted name such as {@code "klat.e2e.latency"}
   */
  public String name() {
    return name;
  }

  /**
   * Returns the kind of instrument.
   *
   * @return the instrument, never null
   */
  public Instrument instrument() {
    return instrument;
  }

  /**
   * Returns the base unit of the values.
   *
   * @return the unit, never null
   */
  public Unit unit() {
    return unit;
  }

  /**
   * Returns what the metric measures.
   *
   * @return a one-sentence description
   */
  public String description() {
    return description;
  }

  /**
   * Returns the tag keys, each a {@link TagKeys} constant.
   *
   * @return an unmodifiable list, empty for a metric without tags
   */
  public List<String> tagKeys() {
    return tagKeys;
  }

  /**
   * Returns the name a Prometheus exporter gives the metric: dots replaced by underscores, then
   * {@code _} and the {@linkplain Unit#prometheusSuffix() unit suffix} if the unit has one, then
   * {@code _total} for counters.
   *
   * @return for example {@code "klat_e2e_latency_seconds"} or {@code
   *     "klat_agent_headers_invalid_total"}
   */
  public String prometheusName() {
    return prometheusName;
  }

  /**
   * Returns every series name that can appear in a Prometheus scrape for this metric, so that
   * dashboards and rules can be checked against it.
   *
   * @return for a histogram {@code [name, name_bucket, name_count, name_sum]}, where {@code name}
   *     is {@link #prometheusName()}; for a counter or gauge {@code [name]}. Unmodifiable.
   */
  public List<String> prometheusSeriesNames() {
    return PrometheusNames.series(prometheusName, instrument);
  }

  /**
   * Returns the metric's name, so that a definition can be printed where a name is expected.
   *
   * @return {@link #name()}
   */
  @Override
  public String toString() {
    return name;
  }
}
