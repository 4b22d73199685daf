package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.metrics.Counter;
import dev.klat.agent.weave.PrivateFields;
import dev.klat.model.MetricDef;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Per-{@code KafkaShareConsumer} state, created at its first {@code poll()} and kept in the
 * consumer itself: the consumer's instruments and span limiter (a {@link ConsumerState} whose group
 * is the share group), its acknowledgement mode, and its sampled deliveries waiting for their
 * acknowledgement's outcome.
 */
final class ShareConsumerState implements ShareDeliveries.SpanSink, ShareDeliveries.GiveUpCounters {

  static final String VERSION_RESOURCE = "kafka/kafka-version.properties";

  final ConsumerState consumer;

  /** False for a kafka-clients older than 4.1, whose share consumer klat has not checked. */
  final boolean supported;

  /** The kafka-clients version read from the consumer's class loader, or null. */
  final String clientVersion;

  /**
   * {@code share.acknowledgement.mode=implicit}: the next {@code poll()} or commit accepts the last
   * poll's records. False when explicit or unknown (then only explicit calls give {@code K}).
   */
  final boolean implicitAcknowledgement;

  final ShareDeliveries deliveries;

  private final AgentRuntime runtime;
  private final ConcurrentMap<String, Counter> redeliveriesByTopic =
      new ConcurrentHashMap<String, Counter>();
  private final Counter[] giveUps = new Counter[ShareDeliveries.GiveUp.values().length];

  ShareConsumerState(AgentRuntime runtime, Object shareConsumer) {
    this.runtime = runtime;
    Object internals = ConsumerState.internalsOf(shareConsumer);
    this.consumer =
        new ConsumerState(
            runtime, shareConsumer, groupIdOf(internals), fetchSettingsOf(internals), true);
    this.clientVersion = versionOf(shareConsumer.getClass().getClassLoader());
    this.supported = clientVersion == null || isSupported(clientVersion);
    this.implicitAcknowledgement = isImplicit(PrivateFields.read(internals, "acknowledgementMode"));
    for (ShareDeliveries.GiveUp reason : ShareDeliveries.GiveUp.values()) {
      giveUps[reason.ordinal()] =
          runtime.metrics().counter(MetricDef.AGENT_SHARE_SPANS_UNACKNOWLEDGED, reason.reason);
    }
    this.deliveries = new ShareDeliveries(runtime.time, this, this);
  }

  @Override
  public void export(SpanRecord span) {
    runtime.export(span);
  }

  @Override
  public Counter counter(ShareDeliveries.GiveUp reason) {
    return giveUps[reason.ordinal()];
  }

  /** The redelivery counter of a topic, for this share group; null past the topic limit. */
  Counter redeliveries(String topic) {
    Counter counter = redeliveriesByTopic.get(topic);
    if (counter == null) {
      if (redeliveriesByTopic.size() >= ConsumerState.MAX_TOPICS) {
        topic = ConsumerState.OVERFLOW_TOPIC;
        counter = redeliveriesByTopic.get(topic);
        if (counter != null) {
          return counter;
        }
      }
      counter =
          runtime.metrics().counter(MetricDef.CONSUMER_SHARE_REDELIVERIES, topic, consumer.groupId);
      Counter raced = redeliveriesByTopic.putIfAbsent(topic, counter);
      if (raced != null) {
        counter = raced;
      }
    }
    return counter;
  }

  // ShareConsumerImpl holds the share group id as groupId in 4.1 to 4.4.
  private static String groupIdOf(Object internals) {
    Object group = PrivateFields.read(internals, "groupId");
    return group == null ? "" : group.toString();
  }

  // ShareFetchCollector holds a ShareFetchConfig from 4.2 (shareFetchConfig) and a FetchConfig in
  // 4.1 (fetchConfig): both have minBytes, maxWaitMs and maxPollRecords. Null when hidden.
  private static Object fetchSettingsOf(Object internals) {
    Object collector = PrivateFields.read(internals, "fetchCollector");
    if (collector == null) {
      return null;
    }
    Object settings = PrivateFields.read(collector, "shareFetchConfig");
    return settings != null ? settings : PrivateFields.read(collector, "fetchConfig");
  }

  // A ShareAcknowledgementMode (4.1 to 4.4) wraps an enum IMPLICIT or EXPLICIT.
  static boolean isImplicit(Object mode) {
    if (mode == null) {
      return false;
    }
    Object inner = PrivateFields.read(mode, "acknowledgementMode");
    Object named = inner instanceof Enum ? inner : mode;
    return named instanceof Enum && ((Enum<?>) named).name().equals("IMPLICIT");
  }

  /** 4.1 and every later 4.x: the share consumer klat read (4.0's was an early access one). */
  static boolean isSupported(String version) {
    String[] parts = version.trim().split("[.-]");
    if (parts.length < 2) {
      return false;
    }
    try {
      int major = Integer.parseInt(parts[0]);
      int minor = Integer.parseInt(parts[1]);
      return major == 4 && minor >= 1;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String versionOf(ClassLoader loader) {
    InputStream in =
        loader == null
            ? ClassLoader.getSystemResourceAsStream(VERSION_RESOURCE)
            : loader.getResourceAsStream(VERSION_RESOURCE);
    if (in == null) {
      return null;
    }
    try {
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      return null;
    } finally {
      try {
        in.close();
      } catch (IOException ignored) {
        // Read already.
      }
    }
  }
}
