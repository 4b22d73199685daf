/**
 * What clients push of themselves through the brokers (KIP-714), forwarded by the broker probe's
 * {@code ClientTelemetryForwarder} to {@code /v1/metrics} with {@code
 * klat.telemetry.source=kip-714} on the resource: {@link ClientTelemetryReader} reads one client's
 * resource and points by the KIP-714 names (the same for Java clients and librdkafka) into a
 * checked {@link ClientPush}; {@link ClientInstances} keeps the latest push of each client
 * instance, bounded in count and estimated bytes, the silent ones leaving after {@code
 * clients.stale-after}; {@link ClientTelemetry} wires them, counts each payload's outcome and gives
 * {@code /api/clients}, the {@code clientTelemetry} of {@code /api/breakdown} and the per-client
 * gauges of {@code /metrics}.
 *
 * <p>Every figure here is the client's own aggregate (its average or maximum over its metric
 * window), never a per-record latency: it sits beside the breakdowns, it is never joined into them.
 * No I/O; the clock is injected.
 */
package dev.klat.collector.clienttelemetry;
