/**
 * OTLP/HTTP protobuf on the wire, for both agents: {@link dev.klat.agentcore.otlp.ProtoWriter}
 * writes the protobuf, {@link dev.klat.agentcore.otlp.OtlpHttpSender} posts it with {@link
 * java.net.HttpURLConnection} and classifies the answer, {@link dev.klat.agentcore.otlp.Backoff}
 * spaces the retries, and {@link dev.klat.agentcore.otlp.ClockSync} reads the collector's clock off
 * every answer; {@link dev.klat.agentcore.otlp.FailureReason} and {@link
 * dev.klat.agentcore.otlp.ExportFailures} say why a request failed and count it. What goes into a
 * request (the client agent's spans and metrics, the probe's ranges) is each agent's own.
 */
package dev.klat.agentcore.otlp;
