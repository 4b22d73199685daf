package dev.klat.collector.correlate.join;

/**
 * One input of the join, as a trace request's decoding hands it on: a producer span, a consumer
 * span, or an agent's clock sample. The order of a request is kept, each resource's clock sample
 * before its spans, so the join has a sample before the joins of the spans it came with.
 */
public sealed interface JoinInput permits ProducerSpan, ConsumerSpan, ClockSync, OtelRecordSpan {}
