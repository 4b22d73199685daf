package dev.klat.collector.scale.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.collector.SpanTopicSettings;
import dev.klat.collector.receive.BusyException;
import dev.klat.collector.receive.MalformedException;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** KafkaIngest's answers when the producer cannot take a record, on kafka-clients' mock. */
class KafkaIngestBusyTest {
  static final SpanTopicSettings TOPICS =
      new SpanTopicSettings("unused:9092", "spans", "metrics", "logs", "g", 3, (short) 1);

  final MockProducer<byte[], byte[]> producer =
      new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
  final KafkaIngest ingest = new KafkaIngest(producer, TOPICS);
  final byte[] body = TraceRequests.threeTraces().toByteArray();

  @Test
  void aFullProducerBufferRefusesTheRequestAsBusyAndCountsItsSpans() {
    producer.sendException = new BufferExhaustedException("full");

    assertThatThrownBy(() -> ingest.traces(body, body.length, false))
        .isInstanceOf(BusyException.class)
        .satisfies(e -> assertThat(((BusyException) e).reason()).isEqualTo("producer-buffer-full"));
    assertThat(ingest.stats().spansReceived()).isEqualTo(7);
    assertThat(ingest.stats().spansForwarded()).isZero();
    assertThat(ingest.stats().spansRefused()).isEqualTo(7);
  }

  @Test
  void aRequestIsAnsweredOnceItsRecordsAreBufferedBeforeTheBrokerAcks() throws Exception {
    assertThat(ingest.traces(body, body.length, false)).isEmpty();

    assertThat(producer.history()).hasSize(3);
    assertThat(ingest.stats().spansForwarded()).isEqualTo(7);
  }

  @Test
  void aRecordFailingAfterTheAnswerIsCountedLost() throws Exception {
    ingest.logs(body, body.length);

    producer.errorNext(new NetworkException("gone"));

    assertThat(ingest.stats().recordsLost()).isEqualTo(1);
  }

  @Test
  void jsonIsRefusedWithWhatToSendInstead() {
    assertThat(ingest.acceptsJson()).isFalse();
    assertThatThrownBy(() -> ingest.metrics(new byte[] {'{', '}'}, 2, true))
        .isInstanceOf(MalformedException.class)
        .hasMessageContaining("OTLP protobuf only")
        .hasMessageContaining("application/x-protobuf");
  }
}
