package dev.klat.collector.correlate.join;

/**
 * One consumed record an output record was produced from (section 9 of the latency model): named by
 * the output's producer span, in its {@code klat.link.*} attributes or in one of its OTLP span
 * links.
 *
 * @param key the consumed record
 * @param group the consumer group that read it, or null when the agent did not know it
 * @param traceIdHigh the high 64 bits of the consumed record's trace id, 0 with {@code traceIdLow}
 *     when not given
 * @param traceIdLow the low 64 bits of that trace id
 * @param spanId the consumer span id of the consumed record (the output's parent), or 0
 */
public record RecordLink(
    RecordKey key, String group, long traceIdHigh, long traceIdLow, long spanId) {}
