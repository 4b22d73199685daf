package dev.klat.agent.consumer;

import java.lang.reflect.Method;
import org.apache.kafka.common.message.FetchResponseData;

/** The high watermark a fetch response gave for a partition, on every supported client version. */
final class HighWatermarks {
  // For 2.8, whose partition data is FetchResponse.PartitionData: its highWatermark() by
  // reflection, looked up once.
  private static volatile boolean legacyPartitionData;
  private static volatile Method legacyHighWatermark;

  private HighWatermarks() {}

  /** The partition data's high watermark, or -1 when it cannot be read. */
  static long of(Object partitionData) {
    if (partitionData == null) {
      return -1L;
    }
    if (!legacyPartitionData) {
      try {
        return ModernPartitionData.highWatermark(partitionData);
      } catch (NoClassDefFoundError e) {
        // 2.8: FetchResponseData.PartitionData does not exist yet; never try again.
        legacyPartitionData = true;
      }
    }
    try {
      Class<?> type = partitionData.getClass();
      Method method = legacyHighWatermark;
      if (method == null || method.getDeclaringClass() != type) {
        method = type.getMethod("highWatermark");
        legacyHighWatermark = method;
      }
      return ((Number) method.invoke(partitionData)).longValue();
    } catch (Exception | LinkageError e) {
      return -1L;
    }
  }

  /** Names a class that exists from 3.0 only, so that 2.8 fails here once and not at linking. */
  private static final class ModernPartitionData {
    static long highWatermark(Object partitionData) {
      return partitionData instanceof FetchResponseData.PartitionData
          ? ((FetchResponseData.PartitionData) partitionData).highWatermark()
          : -1L;
    }
  }
}
