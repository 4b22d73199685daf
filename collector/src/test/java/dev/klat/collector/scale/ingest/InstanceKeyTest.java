package dev.klat.collector.scale.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.clienttelemetry.ClientPayloads;
import dev.klat.collector.clienttelemetry.ClientTelemetryIngestTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The metrics topic's record key of a broker forwarder's client telemetry (KIP-714): the client
 * instance id, read from the forwarder's second resource field, so that one client's pushes stay on
 * one partition and with one join member.
 */
class InstanceKeyTest {

  @Test
  void aForwardedClientPayloadIsKeyedByItsClientInstanceId() throws Exception {
    byte[] body = ClientTelemetryIngestTest.javaProducer("AAAAAAAAAAAAAAAAAAAAAQ").request();
    assertThat(new String(InstanceKey.of(body, body.length), StandardCharsets.UTF_8))
        .isEqualTo("AAAAAAAAAAAAAAAAAAAAAQ");
    byte[] rdkafka =
        ClientPayloads.librdkafka("rdk-1", "c", "2.10.0")
            .gauge("org.apache.kafka.producer.record.queue.time.avg", 1.0)
            .request();
    assertThat(new String(InstanceKey.of(rdkafka, rdkafka.length), StandardCharsets.UTF_8))
        .isEqualTo("rdk-1");
    // Without an instance id: no key, as for a sender with no id at all.
    byte[] none =
        ClientPayloads.librdkafka(null, "c", "2.10.0")
            .gauge("org.apache.kafka.producer.record.queue.time.avg", 1.0)
            .request();
    assertThat(InstanceKey.of(none, none.length)).isNull();
  }
}
