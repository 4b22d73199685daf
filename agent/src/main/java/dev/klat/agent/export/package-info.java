/**
 * The agent's OTLP pipeline: what leaves the application and how. Sampled records' spans ({@link
 * dev.klat.agent.export.SpanRecord}, with {@link dev.klat.agent.export.TraceIds} for their ids and
 * {@code traceparent}, {@link dev.klat.agent.export.PartitionIds} for their partition attribute) go
 * through a bounded queue that drops, and counts, when full ({@link
 * dev.klat.agent.export.SpanQueue}); one daemon thread ({@link dev.klat.agent.export.Telemetry},
 * configured by {@link dev.klat.agent.export.ExportSettings}) encodes them and the registry's
 * metrics with the agent's resource ({@link dev.klat.agent.export.OtlpEncoder}) and sends them,
 * backing off after failures, with the pipeline's own health counters and rate-limited warnings.
 * The HTTP sender, the protobuf writer, the backoff and the clock exchange are the core's ({@code
 * dev.klat.agentcore.otlp}), shared with the broker probe; the instruments the hooks record into
 * are {@code dev.klat.agent.metrics}.
 *
 * <p>Why not the OpenTelemetry SDK and its exporter: the agent must run on Java 8 and add nothing
 * to the application's classpath; the SDK's OTLP/HTTP sender needs OkHttp and Kotlin (about 5 MB,
 * and their start-up cost) or the Java 11 HttpClient. So the agent encodes OTLP protobuf by hand
 * ({@code OtlpEncoder}) and sends it with {@link java.net.HttpURLConnection}; the tests parse what
 * it sends with the generated classes of the real OTLP schema.
 */
package dev.klat.agent.export;
