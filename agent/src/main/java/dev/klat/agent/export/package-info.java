/**
 * The agent's export layer: lock-free metric instruments and spans, and a single daemon thread that
 * sends them as OTLP/HTTP protobuf.
 *
 * <p>Why not the OpenTelemetry SDK and its exporter: the agent must run on Java 8 and add nothing
 * to the application's classpath; the SDK's OTLP/HTTP sender needs OkHttp and Kotlin (about 5 MB,
 * and their start-up cost) or the Java 11 HttpClient; and the SDK's histogram handles synchronize
 * on every recording, while our every-record hot path runs on the Kafka producer's network thread
 * where no lock is allowed. So the agent encodes OTLP protobuf by hand ({@code OtlpEncoder}) and
 * sends it with {@link java.net.HttpURLConnection}; the tests parse what it sends with the
 * generated classes of the real OTLP schema.
 */
package dev.klat.agent.export;
