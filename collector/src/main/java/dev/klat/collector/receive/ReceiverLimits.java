package dev.klat.collector.receive;

/**
 * What an OTLP receiver accepts at most, the same for HTTP and gRPC.
 *
 * @param maxBodyBytes the largest message accepted, after decompression
 * @param maxConcurrentRequests how many requests may be read and decoded at once
 */
public record ReceiverLimits(int maxBodyBytes, int maxConcurrentRequests) {
  public ReceiverLimits {
    if (maxBodyBytes <= 0 || maxConcurrentRequests <= 0) {
      throw new IllegalArgumentException(
          "receiver limits must be positive: maxBodyBytes="
              + maxBodyBytes
              + ", maxConcurrentRequests="
              + maxConcurrentRequests);
    }
  }
}
