package dev.klat.agentcore.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProtoWriterTest {

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 126, 127, 128, 129, 16_383, 16_384, 16_385, 2_097_151, 2_097_152})
  void nestedMessageLengthsOfEverySizeClassParseBack(int bodyLength) throws Exception {
    ProtoWriter w = new ProtoWriter(16);
    w.varintField(1, 7);
    int outer = w.beginMessage(2);
    int inner = w.beginMessage(3);
    byte[] body = new byte[bodyLength];
    for (int i = 0; i < bodyLength; i++) {
      body[i] = (byte) i;
    }
    w.raw(body, 0, body.length);
    w.endMessage(inner);
    w.endMessage(outer);
    w.fixed64Field(4, -1L);

    CodedInputStream in = CodedInputStream.newInstance(w.toByteArray());
    assertThat(in.readTag()).isEqualTo(tag(1, WireFormat.WIRETYPE_VARINT));
    assertThat(in.readInt64()).isEqualTo(7);
    assertThat(in.readTag()).isEqualTo(tag(2, WireFormat.WIRETYPE_LENGTH_DELIMITED));
    int outerLength = in.readRawVarint32();
    assertThat(outerLength).isEqualTo(1 + ProtoWriter.varintSize(bodyLength) + bodyLength);
    assertThat(in.readTag()).isEqualTo(tag(3, WireFormat.WIRETYPE_LENGTH_DELIMITED));
    assertThat(in.readBytes().toByteArray()).isEqualTo(body);
    assertThat(in.readTag()).isEqualTo(tag(4, WireFormat.WIRETYPE_FIXED64));
    assertThat(in.readFixed64()).isEqualTo(-1L);
    assertThat(in.isAtEnd()).isTrue();
  }

  private static int tag(int fieldNumber, int wireType) {
    return (fieldNumber << 3) | wireType;
  }

  @Test
  void varintsMatchProtobufJava() throws Exception {
    long[] values = {0, 1, 127, 128, 300, Integer.MAX_VALUE, Long.MAX_VALUE, -1, Long.MIN_VALUE};
    ProtoWriter w = new ProtoWriter(1);
    for (long v : values) {
      w.varint(v);
    }
    CodedInputStream in = CodedInputStream.newInstance(w.toByteArray());
    for (long v : values) {
      assertThat(in.readRawVarint64()).isEqualTo(v);
    }
    assertThat(in.isAtEnd()).isTrue();
    assertThat(ProtoWriter.varintSize(-1)).isEqualTo(10);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "orders", "\u007f", "caf\u00e9", "\u20ac", "\ud83d\ude00 topic", "a\u0000b"})
  void stringsAreUtf8WhetherAsciiOrNot(String value) throws Exception {
    ProtoWriter w = new ProtoWriter(16);
    w.stringField(5, value);
    w.stringField(6, value + value);

    CodedInputStream in = CodedInputStream.newInstance(w.toByteArray());
    assertThat(in.readTag()).isEqualTo(tag(5, WireFormat.WIRETYPE_LENGTH_DELIMITED));
    assertThat(in.readString()).isEqualTo(value);
    assertThat(in.readTag()).isEqualTo(tag(6, WireFormat.WIRETYPE_LENGTH_DELIMITED));
    assertThat(in.readString()).isEqualTo(value + value);
    assertThat(in.isAtEnd()).isTrue();
  }

  @Test
  void idsAreBigEndian() {
    ProtoWriter w = new ProtoWriter(1);
    w.traceIdField(1, 0x0102030405060708L, 0x090a0b0c0d0e0f10L);
    w.spanIdField(2, 0x1112131415161718L);
    assertThat(w.toByteArray())
        .containsExactly(
            0x0a, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0x12, 8, 0x11, 0x12,
            0x13, 0x14, 0x15, 0x16, 0x17, 0x18);
  }
}
