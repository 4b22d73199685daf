package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import java.util.Locale;

/** The phases of a request that Kafka's RequestMetrics time, each a Yammer histogram in ms. */
enum Phase {
  REQUEST_QUEUE("RequestQueueTimeMs"),
  LOCAL("LocalTimeMs"),
  REMOTE("RemoteTimeMs"),
  THROTTLE("ThrottleTimeMs"),
  RESPONSE_QUEUE("ResponseQueueTimeMs"),
  RESPONSE_SEND("ResponseSendTimeMs"),
  TOTAL("TotalTimeMs");

  static final Phase[] ALL = values();
  static final Request[] REQUESTS = Request.values();

  /** The MBean's {@code name=} key. */
  final String jmxName;

  /** The name the rules of deploy/jmx-exporter/kafka-broker.yaml give it, before the suffix. */
  final String exporterName;

  /** A short key for the JSON of {@code /api/brokers}. */
  final String key;

  Phase(String jmxName) {
    this.jmxName = jmxName;
    this.exporterName = "kafka_network_requestmetrics_" + jmxName.toLowerCase(Locale.ROOT);
    String base = jmxName.substring(0, jmxName.length() - "TimeMs".length());
    this.key = Character.toLowerCase(base.charAt(0)) + base.substring(1);
  }

  /** The {@code request=} value of a request kind, in JMX and in the exporter's labels. */
  static String requestLabel(Request request) {
    return switch (request) {
      case PRODUCE -> "Produce";
      case FETCH_CONSUMER -> "FetchConsumer";
      case FETCH_FOLLOWER -> "FetchFollower";
    };
  }

  static Request request(String label) {
    return switch (label) {
      case "Produce" -> Request.PRODUCE;
      case "FetchConsumer" -> Request.FETCH_CONSUMER;
      case "FetchFollower" -> Request.FETCH_FOLLOWER;
      default -> null;
    };
  }
}
