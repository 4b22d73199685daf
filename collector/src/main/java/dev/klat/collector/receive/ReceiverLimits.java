package dev.klat.collector.receive;

/**
 * What an OTLP receiver accepts at most, the same for HTTP and gRPC.
 *
 * @param maxBodyBytes the largest message accepted, after decompression
 * @param maxConcurrentRequests how many requests may be decoded at once (a request takes its slot
 *     once its body has arrived)
 * @param maxReceivingBytes the bytes that the bodies still arriving may hold in all (HTTP: the
 *     buffers they are read into; gRPC: {@code maxBodyBytes} per call in flight, what its message
 *     may grow to before it is complete), raised to {@code maxBodyBytes} if lower
 * @param readTimeoutMillis how long a request may take to arrive whole (headers and body): a gRPC
 *     call is cancelled then; for HTTP the JDK's server closes the connection (the process sets
 *     {@code sun.net.httpserver.maxReqTime}, see {@code collector/DESIGN.md}) and the receiver
 *     counts it
 */
public record ReceiverLimits(
    int maxBodyBytes, int maxConcurrentRequests, long maxReceivingBytes, long readTimeoutMillis) {
  /** The defaults of {@code otlp.max-receiving-bytes} and {@code otlp.read-timeout}. */
  public static final long DEFAULT_RECEIVING_BODIES = 4;

  public static final long DEFAULT_READ_TIMEOUT_MILLIS = 10_000;

  public ReceiverLimits {
    if (maxBodyBytes <= 0 || maxConcurrentRequests <= 0 || readTimeoutMillis <= 0) {
      throw new IllegalArgumentException(
          "receiver limits must be positive: maxBodyBytes="
              + maxBodyBytes
              + ", maxConcurrentRequests="
              + maxConcurrentRequests
              + ", readTimeoutMillis="
              + readTimeoutMillis);
    }
    if (maxReceivingBytes <= 0) {
      throw new IllegalArgumentException(
          "maxReceivingBytes must be positive: " + maxReceivingBytes);
    }
    // Raised to one body of the largest size, or no such body could ever arrive.
    maxReceivingBytes = Math.max(maxReceivingBytes, maxBodyBytes);
  }

  /** With the default receiving budget (four bodies of the largest size) and read timeout. */
  public ReceiverLimits(int maxBodyBytes, int maxConcurrentRequests) {
    this(
        maxBodyBytes,
        maxConcurrentRequests,
        DEFAULT_RECEIVING_BODIES * maxBodyBytes,
        DEFAULT_READ_TIMEOUT_MILLIS);
  }

  /**
   * How many gRPC calls may be in flight (started, message not yet complete) at once: each may hold
   * up to {@code maxBodyBytes} of Netty's buffers before its message is whole.
   */
  int maxCallsReceiving() {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxReceivingBytes / maxBodyBytes));
  }
}
