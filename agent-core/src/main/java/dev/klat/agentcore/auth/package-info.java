/**
 * The agents' credentials toward the collector, shared by the client agent and the broker probe:
 * {@link dev.klat.agentcore.auth.ExportHeaders} reads {@code klat.export.headers} (the format of
 * OpenTelemetry's {@code OTEL_EXPORTER_OTLP_HEADERS}), {@link dev.klat.agentcore.auth.PemFiles}
 * reads PEM certificates and private keys with the JDK alone (Java 8), and {@link
 * dev.klat.agentcore.auth.ExportTls} makes the exporter's own TLS context from them, never the
 * JVM's. {@link dev.klat.agentcore.auth.Secrets} keeps credentials out of messages.
 */
package dev.klat.agentcore.auth;
