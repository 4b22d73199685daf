package dev.klat.probe.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.klat.agentcore.otlp.TestCollector;
import dev.klat.model.ClientTelemetryAttributes;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The forwarder as the broker calls it (a real {@link RequestContext}, payloads built with the real
 * OTLP schema), sending to a real HTTP collector whose requests are read back with the same schema.
 */
@SuppressWarnings({"deprecation", "removal"})
class ClientTelemetryForwarderTest {

  private final ClientTelemetryForwarder forwarder = new ClientTelemetryForwarder();
  private final Uuid instanceId = Uuid.randomUuid();

  @AfterEach
  void close() {
    forwarder.close();
  }

  @Test
  void aPushGoesToTheCollectorWithTheBrokersAttributesInOneResource() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      configure(collector.endpoint());
      MetricsData pushed =
          metricsData(
              attribute("group_id", "billing"),
              // A client claiming another principal: its own value never reaches the collector.
              attribute(ClientTelemetryAttributes.CLIENT_PRINCIPAL.name(), "User:admin"),
              attribute("klat.anything", "x"));
      forwarder.clientReceiver().exportMetrics(context("orders-producer"), payload(pushed));

      TestCollector.Received received = collector.nextMetrics(5_000);
      assertThat(received).isNotNull();
      assertThat(received.path()).isEqualTo("/v1/metrics");
      ExportMetricsServiceRequest request = received.metrics();
      assertThat(request.getResourceMetricsCount()).isEqualTo(1);
      ResourceMetrics resourceMetrics = request.getResourceMetrics(0);
      // Exactly one resource field on the wire, so that a reader taking the first sees it all.
      assertThat(resourceFieldCount(received.body())).isEqualTo(1);
      Map<String, AnyValue> resource = byKey(resourceMetrics.getResource().getAttributesList());
      assertThat(resource.get("group_id").getStringValue()).isEqualTo("billing");
      assertThat(resource).doesNotContainKey("klat.anything");
      assertThat(resource.get("klat.telemetry.source").getStringValue()).isEqualTo("kip-714");
      assertThat(resource.get("klat.client.instance_id").getStringValue())
          .isEqualTo(instanceId.toString());
      assertThat(resource.get("messaging.client.id").getStringValue()).isEqualTo("orders-producer");
      assertThat(resource.get("klat.client.software.name").getStringValue())
          .isEqualTo("apache-kafka-java");
      assertThat(resource.get("klat.client.software.version").getStringValue()).isEqualTo("4.4.0");
      assertThat(resource.get("klat.client.principal").getStringValue())
          .isEqualTo("User:ANONYMOUS");
      assertThat(resource.get("klat.client.address").getStringValue()).isEqualTo("10.1.2.3");
      assertThat(resource.get("klat.client.terminating").getIntValue()).isEqualTo(0);
      assertThat(resource.get("klat.broker.id").getIntValue()).isEqualTo(7);
      assertThat(
              resourceMetrics.getResource().getAttributesList().stream()
                  .filter(a -> a.getKey().equals("klat.client.principal"))
                  .count())
          .isEqualTo(1);
      // The metrics as the client sent them.
      assertThat(resourceMetrics.getScopeMetricsList())
          .isEqualTo(pushed.getResourceMetrics(0).getScopeMetricsList());
      assertThat(resourceMetrics.getSchemaUrl()).isEqualTo("https://schema.example/1");
      waitFor(() -> forwarder.counters().getForwarded() == 1);
      assertThat(forwarder.counters().dropped()).isZero();
    }
  }

  @Test
  void aJavaClientsPushOfOneResourceMetricsPerMetricGoesWhole() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      configure(collector.endpoint());
      MetricsData.Builder data = MetricsData.newBuilder();
      for (int i = 0; i < 500; i++) {
        data.addAllResourceMetrics(
            metricsData(attribute("group_id", "g")).getResourceMetricsList());
      }
      forwarder.exportMetrics(context("c"), payload(data.build()));

      assertThat(collector.nextMetrics(5_000).metrics().getResourceMetricsCount()).isEqualTo(500);
    }
  }

  @Test
  void aGzippedPayloadAsA37BrokerHandsItOverIsReadLikeAPlainOne() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      configure(collector.endpoint());
      MetricsData pushed = metricsData();
      ByteArrayOutputStream compressed = new ByteArrayOutputStream();
      try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
        gzip.write(pushed.toByteArray());
      }
      forwarder.exportMetrics(context("c"), payload(compressed.toByteArray(), false));

      ResourceMetrics resourceMetrics =
          collector.nextMetrics(5_000).metrics().getResourceMetrics(0);
      assertThat(resourceMetrics.getScopeMetricsList())
          .isEqualTo(pushed.getResourceMetrics(0).getScopeMetricsList());
    }
  }

  @Test
  void aResourceMetricsWithoutAResourceGetsOneAndTheLastPushSaysTerminating() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      configure(collector.endpoint());
      MetricsData pushed =
          MetricsData.newBuilder()
              .addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(scopeMetrics()))
              .build();
      forwarder.exportMetrics(context("c"), payload(pushed.toByteArray(), true));

      Map<String, AnyValue> resource =
          byKey(
              collector
                  .nextMetrics(5_000)
                  .metrics()
                  .getResourceMetrics(0)
                  .getResource()
                  .getAttributesList());
      assertThat(resource.get("klat.client.terminating").getIntValue()).isEqualTo(1);
    }
  }

  @Test
  void hostileAndEmptyPayloadsAreCountedAndNeverThrowNorSend() throws Exception {
    try (TestCollector collector = new TestCollector()) {
      configure(collector.endpoint());
      byte[] random = new byte[4096];
      ThreadLocalRandom.current().nextBytes(random);
      random[0] = 0x0a; // looks like MetricsData at first
      byte[][] hostile = {
        random,
        {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f}, // a 268 MB length
        {
          0x0a,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          (byte) 0x80,
          0x01
        }, // an 11-byte varint
        {0x12, 0x00}, // a field MetricsData does not have
        {0x1f, (byte) 0x8b, 0x08, 0x00}, // truncated gzip
        {0x0a, 0x04, 0x0a, 0x02, 0x0a, 0x05}, // a resource attribute that runs past its resource
        tooManyResources(),
      };
      for (byte[] bytes : hostile) {
        assertThatCode(() -> forwarder.exportMetrics(context("evil"), payload(bytes, false)))
            .doesNotThrowAnyException();
      }
      forwarder.exportMetrics(context("quiet"), payload(new byte[0], false));
      forwarder.exportMetrics(context("quiet"), payload(MetricsData.getDefaultInstance()));
      forwarder.exportMetrics(context("quiet"), nullPayload());

      waitFor(
          () ->
              forwarder.counters().getDroppedMalformed() == hostile.length
                  && forwarder.counters().getDroppedEmpty() == 3);
      // Sent nothing: then a good push still goes.
      assertThat(collector.metrics).isEmpty();
      forwarder.exportMetrics(context("good"), payload(metricsData()));
      assertThat(collector.nextMetrics(5_000)).isNotNull();
      assertThat(forwarder.counters().getReceived()).isEqualTo(hostile.length + 4);
    }
  }

  @Test
  void aCollectorThatIsDownCostsCountedDropsAndNothingElse() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    configure("http://127.0.0.1:" + closedPort);
    RequestContext context = context("c");
    ClientTelemetryPayload payload = payload(metricsData());
    forwarder.exportMetrics(context, payload); // loads the classes
    long start = System.nanoTime();
    for (int i = 1; i < 50; i++) {
      forwarder.exportMetrics(context, payload);
    }
    // The request thread only queued: well under a millisecond a push, never a connect.
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(500);
    waitFor(() -> forwarder.counters().getDroppedUnsent() == 50);
    assertThat(forwarder.counters().getForwarded()).isZero();
  }

  @Test
  void offOrBadlySetItForwardsNothingAndNeverThrows() {
    Properties off = new Properties();
    off.setProperty("klat.enabled", "false");
    forwarder.configure(Map.of("node.id", "1"), off, Map.of());
    assertThat(forwarder.counters()).isNull();
    assertThatCode(() -> forwarder.exportMetrics(context("c"), payload(metricsData())))
        .doesNotThrowAnyException();

    ClientTelemetryForwarder bad = new ClientTelemetryForwarder();
    Properties typo = new Properties();
    typo.setProperty("klat.probe.telemetry.queue-size", "lots");
    bad.configure(Map.of("node.id", "1"), typo, Map.of());
    assertThat(bad.counters()).isNull();
    assertThatCode(() -> bad.exportMetrics(context("c"), payload(metricsData())))
        .doesNotThrowAnyException();
    bad.close();
  }

  @Test
  void theBrokerIdIsTheNodeIdOrTheOldBrokerId() {
    assertThat(ClientTelemetryForwarder.brokerId(Map.of("node.id", "3"))).isEqualTo(3);
    assertThat(ClientTelemetryForwarder.brokerId(Map.of("broker.id", 4))).isEqualTo(4);
    assertThat(ClientTelemetryForwarder.brokerId(Map.of())).isEqualTo(-1);
  }

  private void configure(String endpoint) {
    Properties system = new Properties();
    system.setProperty("klat.endpoint", endpoint);
    system.setProperty("klat.export.timeout", "2s");
    Map<String, Object> broker = new HashMap<>();
    broker.put("node.id", "7");
    forwarder.configure(broker, system, Map.of());
    assertThat(forwarder.counters()).isNotNull();
  }

  private static RequestContext context(String clientId) throws Exception {
    return new RequestContext(
        new RequestHeader(ApiKeys.PUSH_TELEMETRY, (short) 0, clientId, 1),
        "connection-1",
        InetAddress.getByName("10.1.2.3"),
        KafkaPrincipal.ANONYMOUS,
        ListenerName.normalised("PLAINTEXT"),
        SecurityProtocol.PLAINTEXT,
        new ClientInformation("apache-kafka-java", "4.4.0"),
        false);
  }

  private ClientTelemetryPayload payload(MetricsData data) {
    return payload(data.toByteArray(), false);
  }

  private ClientTelemetryPayload payload(byte[] bytes, boolean terminating) {
    // A buffer with a position, as the broker's may be: only the remaining bytes are the payload.
    ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 3);
    buffer.put(new byte[] {9, 9, 9}).put(bytes).flip().position(3);
    return new Payload(instanceId, terminating, buffer.slice());
  }

  private ClientTelemetryPayload nullPayload() {
    return new Payload(instanceId, false, null);
  }

  private static final class Payload implements ClientTelemetryPayload {
    private final Uuid id;
    private final boolean terminating;
    private final ByteBuffer data;

    Payload(Uuid id, boolean terminating, ByteBuffer data) {
      this.id = id;
      this.terminating = terminating;
      this.data = data;
    }

    @Override
    public Uuid clientInstanceId() {
      return id;
    }

    @Override
    public boolean isTerminating() {
      return terminating;
    }

    @Override
    public String contentType() {
      return "OTLP";
    }

    @Override
    public ByteBuffer data() {
      return data;
    }
  }

  private static MetricsData metricsData(KeyValue... resourceAttributes) {
    return MetricsData.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(Resource.newBuilder().addAllAttributes(List.of(resourceAttributes)))
                .addScopeMetrics(scopeMetrics())
                .setSchemaUrl("https://schema.example/1"))
        .build();
  }

  private static ScopeMetrics scopeMetrics() {
    return ScopeMetrics.newBuilder()
        .addMetrics(
            Metric.newBuilder()
                .setName("org.apache.kafka.producer.record.queue.time.max")
                .setGauge(
                    Gauge.newBuilder()
                        .addDataPoints(
                            NumberDataPoint.newBuilder()
                                .setAsDouble(101.5)
                                .setTimeUnixNano(1_700_000_000_000_000_000L))))
        .build();
  }

  /** 40,000 bytes of empty ResourceMetrics, each of which would get the broker's attributes. */
  private static byte[] tooManyResources() {
    byte[] bytes = new byte[40_000];
    for (int i = 0; i < bytes.length; i += 2) {
      bytes[i] = 0x0a;
    }
    return bytes;
  }

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static Map<String, AnyValue> byKey(List<KeyValue> attributes) {
    Map<String, AnyValue> map = new HashMap<>();
    for (KeyValue attribute : attributes) {
      map.put(attribute.getKey(), attribute.getValue());
    }
    return map;
  }

  /** How many field-1 (resource) occurrences the first ResourceMetrics of the body has. */
  private static int resourceFieldCount(byte[] body) throws Exception {
    ProtoCursor request = new ProtoCursor(body, 0, body.length);
    request.tag();
    int length = request.length();
    ProtoCursor fields = new ProtoCursor(body, request.position(), length);
    int count = 0;
    while (fields.hasMore()) {
      int tag = fields.tag();
      if (tag >>> 3 == 1) {
        count++;
      }
      fields.skipValue(tag & 7);
    }
    return count;
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("condition within 10 s").isNegative();
      Thread.sleep(10);
    }
  }
}
