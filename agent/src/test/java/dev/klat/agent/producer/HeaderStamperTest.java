package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.HeaderNames;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class HeaderStamperTest {

  private static final String TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
  private static final byte[] TIMING = {
    1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17
  };

  @Test
  void stampsAWritableRecordInPlace() {
    ProducerRecord<String, String> record = new ProducerRecord<>("t", "k", "v");

    ProducerRecord<?, ?> sent = HeaderStamper.stamp(record, ascii(TRACEPARENT), TIMING);

    assertThat(sent).isSameAs(record);
    assertThat(values(sent, HeaderNames.TRACEPARENT)).containsExactly(TRACEPARENT);
    assertThat(sent.headers().lastHeader(HeaderNames.TIMING).value()).isEqualTo(TIMING);
  }

  @Test
  void stampingTwiceLeavesOneOfEachHeader() {
    ProducerRecord<String, String> record = new ProducerRecord<>("t", "k", "v");

    HeaderStamper.stamp(record, ascii(TRACEPARENT), TIMING);
    HeaderStamper.stamp(record, ascii(TRACEPARENT.replace("-01", "-00")), TIMING);

    assertThat(values(record, HeaderNames.TRACEPARENT)).hasSize(1);
    assertThat(record.headers().headers(HeaderNames.TIMING)).hasSize(1);
  }

  @Test
  void replacesAnUpstreamTraceparentInsteadOfAddingASecond() {
    ProducerRecord<String, String> record = new ProducerRecord<>("t", "k", "v");
    record.headers().add(HeaderNames.TRACEPARENT, "upstream".getBytes(StandardCharsets.US_ASCII));
    record.headers().add("app-header", new byte[] {42});

    HeaderStamper.stamp(record, ascii(TRACEPARENT), TIMING);

    assertThat(values(record, HeaderNames.TRACEPARENT)).containsExactly(TRACEPARENT);
    assertThat(record.headers().lastHeader("app-header").value()).containsExactly(42);
  }

  @Test
  void stampsACopyWhenKafkaMadeTheHeadersReadOnly() {
    ProducerRecord<String, String> record =
        new ProducerRecord<>("t", 3, 1234L, "k", "v", new RecordHeaders());
    record.headers().add("app-header", new byte[] {7});
    ((RecordHeaders) record.headers()).setReadOnly();

    ProducerRecord<?, ?> sent = HeaderStamper.stamp(record, ascii(TRACEPARENT), TIMING);

    assertThat(sent).isNotSameAs(record);
    assertThat(sent.topic()).isEqualTo("t");
    assertThat(sent.partition()).isEqualTo(3);
    assertThat(sent.timestamp()).isEqualTo(1234L);
    assertThat(sent.key()).isEqualTo("k");
    assertThat(sent.value()).isEqualTo("v");
    assertThat(sent.headers().lastHeader("app-header").value()).containsExactly(7);
    assertThat(values(sent, HeaderNames.TRACEPARENT)).containsExactly(TRACEPARENT);
    // The application's object is untouched.
    assertThat(record.headers().lastHeader(HeaderNames.TRACEPARENT)).isNull();
  }

  private static java.util.List<String> values(ProducerRecord<?, ?> record, String key) {
    java.util.List<String> values = new java.util.ArrayList<>();
    for (Header header : record.headers().headers(key)) {
      values.add(new String(header.value(), StandardCharsets.US_ASCII));
    }
    return values;
  }

  @Test
  void tellsReadOnlyHeadersWithoutWritingToThem() {
    RecordHeaders headers = new RecordHeaders();
    assertThat(HeaderStamper.readOnly(headers)).isFalse();
    headers.setReadOnly();
    assertThat(HeaderStamper.readOnly(headers)).isTrue();
  }

  private static byte[] ascii(String value) {
    return value.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }
}
