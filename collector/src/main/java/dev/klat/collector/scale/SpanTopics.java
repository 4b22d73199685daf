package dev.klat.collector.scale;

import dev.klat.collector.SpanTopicSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates the topics where the ingest and join roles meet. */
public final class SpanTopics {
  private SpanTopics() {}

  /**
   * Creates the spans, metrics and logs topics that do not exist yet, with {@code s.partitions()}
   * partitions and {@code s.replicationFactor()} replicas, or as many as the cluster has brokers if
   * fewer (a one-broker development cluster). A topic that exists is left as it is, whatever its
   * partitions. Waits as long as the admin client's {@code default.api.timeout.ms}.
   *
   * @throws IllegalStateException if the cluster cannot be reached, or refuses a topic (not
   *     authorized, a policy): the message names the topic and the setting to look at
   */
  public static void ensure(Admin admin, SpanTopicSettings s) {
    int brokers;
    try {
      brokers = admin.describeCluster().nodes().get().size();
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot reach the Kafka cluster of the span topics at "
              + s.bootstrapServers()
              + " (spans.kafka.bootstrap-servers): "
              + e.getCause(),
          e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating the span topics", e);
    }
    short replicas = (short) Math.max(1, Math.min(s.replicationFactor(), brokers));
    Map<String, String> settingOf = new LinkedHashMap<>();
    settingOf.put(s.spansTopic(), "spans.kafka.topic");
    settingOf.put(s.metricsTopic(), "spans.kafka.metrics-topic");
    settingOf.put(s.logsTopic(), "spans.kafka.logs-topic");
    List<NewTopic> topics = new ArrayList<>();
    for (String name : settingOf.keySet()) {
      topics.add(new NewTopic(name, s.partitions(), replicas));
    }
    Map<String, KafkaFuture<Void>> results = admin.createTopics(topics).values();
    for (Map.Entry<String, String> topic : settingOf.entrySet()) {
      try {
        results.get(topic.getKey()).get();
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException) && !exists(admin, topic.getKey())) {
          throw refused(topic.getKey(), topic.getValue(), s, replicas, e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while creating topic " + topic.getKey(), e);
      }
    }
  }

  // A principal allowed to write to a topic but not to create topics is refused creation even of a
  // topic that exists: that is not an error for the ingest role.
  private static boolean exists(Admin admin, String topic) {
    try {
      admin.describeTopics(List.of(topic)).allTopicNames().get();
      return true;
    } catch (ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static IllegalStateException refused(
      String topic, String setting, SpanTopicSettings s, short replicas, Throwable cause) {
    String what =
        cause instanceof AuthorizationException
            ? "is not authorized to create or describe it (grant CREATE and DESCRIBE on it, or"
                + " create it beforehand)"
            : "failed with "
                + s.partitions()
                + " partitions (spans.kafka.partitions) and "
                + replicas
                + " replicas (spans.kafka.replication-factor)";
    return new IllegalStateException(
        "creating topic "
            + topic
            + " ("
            + setting
            + ") at "
            + s.bootstrapServers()
            + " "
            + what
            + ": "
            + cause,
        cause);
  }
}
