package dev.klat.collector.clienttelemetry;

import com.google.protobuf.CodedOutputStream;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Forwarded client payloads shaped as the clients push them (KIP-714) and the broker probe's
 * forwarder sends them on: a Java client (kafka-clients 4.x {@code ClientTelemetryReporter}) sends
 * one {@code ResourceMetrics} per metric, each with its resource, point attributes in snake case
 * and no {@code client_id}; librdkafka sends one {@code ResourceMetrics} with every metric, its
 * per-broker points tagged {@code node.id}, the maxima as integers. The forwarder appends its
 * attributes as a second {@code resource} field of each {@code ResourceMetrics}.
 */
public final class ClientPayloads {
  private final List<KeyValue> clientResource = new ArrayList<>();
  private final List<KeyValue> forwarder = new ArrayList<>();
  private final List<Metric> metrics = new ArrayList<>();
  private boolean oneResourcePerMetric;
  private boolean distinctKeyPerResource;
  private int resources;

  public static ClientPayloads javaClient(
      String instanceId, String clientId, String softwareVersion) {
    ClientPayloads p = new ClientPayloads();
    p.oneResourcePerMetric = true;
    p.forwarded(instanceId, clientId, "apache-kafka-java", softwareVersion);
    return p;
  }

  public static ClientPayloads librdkafka(
      String instanceId, String clientId, String softwareVersion) {
    ClientPayloads p = new ClientPayloads();
    p.forwarded(instanceId, clientId, "librdkafka", softwareVersion);
    return p;
  }

  private void forwarded(String instanceId, String clientId, String name, String version) {
    forwarder.add(str("klat.telemetry.source", "kip-714"));
    if (instanceId != null) {
      forwarder.add(str("klat.client.instance_id", instanceId));
    }
    forwarder.add(str("messaging.client.id", clientId));
    forwarder.add(str("klat.client.software.name", name));
    forwarder.add(str("klat.client.software.version", version));
    forwarder.add(str("klat.client.principal", "User:alice"));
    forwarder.add(str("klat.client.address", "10.0.0.7"));
    forwarder.add(num("klat.client.terminating", 0));
    forwarder.add(num("klat.broker.id", 2));
  }

  /** A resource attribute of the client's own (group_id, client_rack, transactional_id). */
  public ClientPayloads clientAttribute(String key, String value) {
    clientResource.add(str(key, value));
    return this;
  }

  /** Each resource gets a key of its own besides the others (a hostile sender's). */
  public ClientPayloads distinctKeyPerResource() {
    distinctKeyPerResource = true;
    return this;
  }

  /** A forwarder attribute set again (a hostile or broken value). */
  public ClientPayloads forwarderAttribute(KeyValue kv) {
    forwarder.add(kv);
    return this;
  }

  public ClientPayloads gauge(String name, double value, KeyValue... attributes) {
    NumberDataPoint.Builder point =
        NumberDataPoint.newBuilder().setTimeUnixNano(1).setAsDouble(value);
    for (KeyValue a : attributes) {
      point.addAttributes(a);
    }
    metrics.add(
        Metric.newBuilder()
            .setName(name)
            .setGauge(Gauge.newBuilder().addDataPoints(point))
            .build());
    return this;
  }

  public ClientPayloads intGauge(String name, long value, KeyValue... attributes) {
    NumberDataPoint.Builder point = NumberDataPoint.newBuilder().setTimeUnixNano(1).setAsInt(value);
    for (KeyValue a : attributes) {
      point.addAttributes(a);
    }
    metrics.add(
        Metric.newBuilder()
            .setName(name)
            .setGauge(Gauge.newBuilder().addDataPoints(point))
            .build());
    return this;
  }

  public ClientPayloads sum(String name, double value) {
    metrics.add(
        Metric.newBuilder()
            .setName(name)
            .setSum(
                Sum.newBuilder()
                    .setIsMonotonic(true)
                    .setAggregationTemporalityValue(2)
                    .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(value)))
            .build());
    return this;
  }

  /** The {@code ExportMetricsServiceRequest} the forwarder posts. */
  public byte[] request() {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      CodedOutputStream coded = CodedOutputStream.newInstance(out);
      if (oneResourcePerMetric) {
        for (Metric m : metrics) {
          coded.writeByteArray(1, resourceMetrics(List.of(m)));
        }
      } else {
        coded.writeByteArray(1, resourceMetrics(metrics));
      }
      coded.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  // The client's ResourceMetrics, then the forwarder's resource as a second field 1.
  private byte[] resourceMetrics(List<Metric> ms) {
    Resource.Builder resource = Resource.newBuilder().addAllAttributes(clientResource);
    if (distinctKeyPerResource) {
      resource.addAttributes(str("resource-" + resources++, "x"));
    }
    byte[] client =
        ResourceMetrics.newBuilder()
            .setResource(resource)
            .addScopeMetrics(ScopeMetrics.newBuilder().addAllMetrics(ms))
            .build()
            .toByteArray();
    byte[] added =
        ResourceMetrics.newBuilder()
            .setResource(Resource.newBuilder().addAllAttributes(forwarder))
            .build()
            .toByteArray();
    byte[] out = new byte[client.length + added.length];
    System.arraycopy(client, 0, out, 0, client.length);
    System.arraycopy(added, 0, out, client.length, added.length);
    return out;
  }

  public static KeyValue str(String k, String v) {
    return KeyValue.newBuilder()
        .setKey(k)
        .setValue(AnyValue.newBuilder().setStringValue(v))
        .build();
  }

  public static KeyValue num(String k, long v) {
    return KeyValue.newBuilder().setKey(k).setValue(AnyValue.newBuilder().setIntValue(v)).build();
  }
}
