package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import org.junit.jupiter.api.Test;

class ProtoWriterTest {
  @Test
  void aPartialSuccessReadsBackWithTheGeneratedClasses() throws Exception {
    // A count beyond one varint byte and a message beyond ASCII.
    byte[] body =
        new ProtoWriter()
            .messageField(
                1, new ProtoWriter().varintField(1, 300).stringField(2, "span ohne Gruppe: ü"))
            .toByteArray();
    ExportTracePartialSuccess partial =
        ExportTraceServiceResponse.parseFrom(body).getPartialSuccess();
    assertThat(partial.getRejectedSpans()).isEqualTo(300);
    assertThat(partial.getErrorMessage()).isEqualTo("span ohne Gruppe: ü");
  }

  @Test
  void aVarintOfAllSixtyFourBitsTakesTenBytes() {
    byte[] body = new ProtoWriter().varintField(1, -1L).toByteArray();
    assertThat(body).hasSize(11);
    assertThat(body[10]).isEqualTo((byte) 1);
  }
}
