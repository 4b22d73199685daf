package dev.klat.collector.receive;

/**
 * Where the OTLP receivers hand the request bodies they read: the join in this process ({@link
 * OtlpIngest}, modes {@code all} and {@code join}) or the span topics (mode {@code ingest}). The
 * receivers own the transport (status codes, limits, clock stamps); a sink owns what a body means.
 * Implementations are thread-safe: every request slot calls them at once.
 */
public interface OtlpSink {

  /** The counts both receivers add to, and the sink's own. */
  ReceiverStats stats();

  /**
   * Refuses trace requests before their body is read, while the sink cannot take them (a full join
   * table, say): the receivers answer 429 with {@code Retry-After} (gRPC: UNAVAILABLE), which OTLP
   * senders retry.
   *
   * @throws BusyException to refuse this request
   */
  void admitTraces() throws BusyException;

  /**
   * Whether OTLP/JSON bodies are taken. When not, the HTTP receiver answers 415 before reading the
   * body, as the OTLP specification says for a content type a server does not support.
   */
  default boolean acceptsJson() {
    return true;
  }

  /**
   * Takes an {@code ExportTraceServiceRequest}.
   *
   * @param body the request, in {@code body[0..length)}; only read during the call
   * @param json whether OTLP/JSON (else protobuf)
   * @return the {@code ExportTraceServiceResponse}, in the request's encoding
   * @throws MalformedException if the body does not decode: nothing of it was taken
   * @throws BusyException if the sink cannot take it now: the sender retries it whole
   */
  byte[] traces(byte[] body, int length, boolean json) throws MalformedException, BusyException;

  /** Takes an {@code ExportMetricsServiceRequest}; as {@link #traces}. */
  byte[] metrics(byte[] body, int length, boolean json) throws MalformedException, BusyException;

  /**
   * Takes the broker probes' {@code ExportLogsServiceRequest} (protobuf only); as {@link #traces}.
   */
  byte[] logs(byte[] body, int length) throws MalformedException, BusyException;
}
