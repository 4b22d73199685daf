/**
 * The client telemetry forwarder: {@link dev.klat.probe.telemetry.ClientTelemetryForwarder}, the
 * class a broker's {@code metric.reporters} names, receives the metrics clients push (KIP-714) and
 * forwards them to the collector's {@code /v1/metrics} with the broker's attributes ({@code
 * model/ClientTelemetryAttributes}). On the broker's request thread only a copy into a bounded
 * queue ({@link dev.klat.probe.telemetry.PushQueue}); the decoding ({@link
 * dev.klat.probe.telemetry.PayloadDecoder}), the rewriting of each resource ({@link
 * dev.klat.probe.telemetry.ResourceAugmenter}) and the sending ({@link
 * dev.klat.probe.telemetry.ForwarderSender}) run on one daemon thread. This package keeps its name
 * in the shaded jar (the broker loads the class by it); the core it uses is relocated as the
 * probe's is. {@code broker-probe/DESIGN.md} ("Client telemetry") says why it is built this way;
 * {@code docs/client-telemetry.md} is the user reference.
 */
package dev.klat.probe.telemetry;
