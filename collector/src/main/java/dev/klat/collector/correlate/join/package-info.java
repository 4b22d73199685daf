/**
 * The join (section 7 of the latency model): {@link Correlator} keys producer and consumer spans on
 * {@code (topic, partition, offset)}, per consumer group, and computes each joined pair's breakdown
 * with every instant on the producer's clock, flagging the segments smaller than their clock
 * uncertainty. Holds its inputs ({@link JoinInput}: the spans, with the evidence the diagnosis
 * weighs, the producer's transaction ({@link ProducerTransaction}) and the consumer's isolation
 * level, and the agents' clock samples), its output ({@link JoinedBreakdown}, with its place in a
 * pipeline: {@link ChainContext}, the links a producer span names in {@link RecordLinks}), and the
 * bounded table and waits behind them (in records, estimated bytes and groups per record). Tail
 * spans (section 8) join the same way and, alone at their window's end, give one-sided breakdowns
 * ({@link OneSidedBreakdowns}), under their own byte budget. A client without klat's agent reports
 * through its OpenTelemetry instrumentation's spans (section 10): {@link OtelRecordSpan}, read by
 * {@code receive}, with the producer contexts a consumer span names ({@link ProducerRefs}); they
 * join in the same table ({@link InstrumentedJoin}; a producer span without an offset is placed by
 * the consumer span that names it, {@link ProducerPlacements}), their breakdowns computed by {@link
 * InstrumentedBreakdowns} and counted in {@link InstrumentedStats}. A share consumer's span
 * (section 11) is one delivery ({@link ShareDelivery}); the deliveries of a record and share group
 * gather in its entry ({@link SharePending}, bounded per record) until the counted one joins, and
 * {@link ShareRecords} makes them the breakdown's {@link ShareRecord}: each delivery's end ({@link
 * ShareEnd}) and the redelivery part of catch-up. Pure logic, no I/O: time comes from an injected
 * clock.
 */
package dev.klat.collector.correlate.join;
