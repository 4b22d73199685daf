package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.model.TimingHeader.DecodeError;
import dev.klat.model.TimingHeader.Decoded;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TimingHeaderTest {

  private static final long SEND_EPOCH_MICROS = 1_700_000_000_123_456L;
  private static final long INSTANCE_ID = 0x0123456789ABCDEFL;

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  private static byte[] valid() {
    return TimingHeader.encode(SEND_EPOCH_MICROS, INSTANCE_ID, true);
  }

  private static byte[] withByte(byte[] header, int index, int value) {
    byte[] copy = header.clone();
    copy[index] = (byte) value;
    return copy;
  }

  private static byte[] withLong(byte[] header, int offset, long value) {
    byte[] copy = header.clone();
    for (int i = 7; i >= 0; i--) {
      copy[offset + i] = (byte) value;
      value >>>= 8;
    }
    return copy;
  }

  @Test
  void encodesVersionOneInTheDocumentedBigEndianLayout() {
    assertThat(TimingHeader.encode(SEND_EPOCH_MICROS, INSTANCE_ID, true))
        .containsExactly(
            bytes(
                0x01, 0x01, 0x00, 0x06, 0x0a, 0x24, 0x18, 0x20, 0x22, 0x40, 0x01, 0x23, 0x45, 0x67,
                0x89, 0xab, 0xcd, 0xef));
    assertThat(TimingHeader.encode(1, -2, false))
        .containsExactly(
            bytes(
                0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff,
                0xff, 0xff, 0xff, 0xfe));
    assertThat(TimingHeader.V1_LENGTH).isEqualTo(18).isLessThanOrEqualTo(TimingHeader.MAX_LENGTH);
    assertThat(TimingHeader.MAX_LENGTH).isEqualTo(32);
  }

  @Test
  void decodesWhatItEncodes() {
    Decoded decoded = new Decoded();
    long[][] cases = {
      {SEND_EPOCH_MICROS, INSTANCE_ID}, {1, 1}, {Long.MAX_VALUE, Long.MIN_VALUE}, {42, -1}
    };
    for (long[] c : cases) {
      for (boolean sampled : new boolean[] {true, false}) {
        byte[] header = TimingHeader.encode(c[0], c[1], sampled);

        assertThat(TimingHeader.decode(header, decoded)).isEqualTo(DecodeError.NONE);
        assertThat(decoded.isValid()).isTrue();
        assertThat(decoded.version()).isEqualTo(1);
        assertThat(decoded.sampled()).isEqualTo(sampled);
        assertThat(decoded.sendEpochMicros()).isEqualTo(c[0]);
        assertThat(decoded.producerInstanceId()).isEqualTo(c[1]);
      }
    }
  }

  @Test
  void encodesAtAnOffsetWithoutTouchingTheRestOfTheArray() {
    byte[] target = new byte[24];
    Arrays.fill(target, (byte) 0x5a);

    int written = TimingHeader.encode(SEND_EPOCH_MICROS, INSTANCE_ID, true, target, 3);

    assertThat(written).isEqualTo(18);
    assertThat(Arrays.copyOfRange(target, 3, 21)).containsExactly(valid());
    assertThat(Arrays.copyOfRange(target, 0, 3)).containsOnly((byte) 0x5a);
    assertThat(Arrays.copyOfRange(target, 21, 24)).containsOnly((byte) 0x5a);
  }

  @Test
  void encodingIntoTooSmallATargetThrowsAndWritesNothing() {
    byte[] target = new byte[20];

    assertThatThrownBy(() -> TimingHeader.encode(SEND_EPOCH_MICROS, INSTANCE_ID, true, target, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> TimingHeader.encode(SEND_EPOCH_MICROS, INSTANCE_ID, true, target, -1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(target).containsOnly((byte) 0);
  }

  @Test
  void encodingInvalidValuesIsAProgrammingError() {
    assertThatThrownBy(() -> TimingHeader.encode(0, INSTANCE_ID, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sendEpochMicros");
    assertThatThrownBy(() -> TimingHeader.encode(-1, INSTANCE_ID, true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TimingHeader.encode(Long.MIN_VALUE, INSTANCE_ID, true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TimingHeader.encode(SEND_EPOCH_MICROS, 0, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("producerInstanceId");
  }

  @Test
  void missingHeaderIsReportedAsMissing() {
    assertThat(TimingHeader.decode(null, new Decoded())).isEqualTo(DecodeError.MISSING);
  }

  @Test
  void emptyHeaderIsReportedAsEmpty() {
    assertThat(TimingHeader.decode(new byte[0], new Decoded())).isEqualTo(DecodeError.EMPTY);
  }

  @Test
  void versionOneHeaderOfAnyOtherLengthIsReportedAsWrongLength() {
    Decoded decoded = new Decoded();
    assertThat(TimingHeader.decode(bytes(1), decoded)).isEqualTo(DecodeError.WRONG_LENGTH);
    assertThat(TimingHeader.decode(Arrays.copyOf(valid(), 17), decoded))
        .isEqualTo(DecodeError.WRONG_LENGTH);
    assertThat(TimingHeader.decode(Arrays.copyOf(valid(), 19), decoded))
        .isEqualTo(DecodeError.WRONG_LENGTH);
    assertThat(TimingHeader.decode(Arrays.copyOf(valid(), 32), decoded))
        .isEqualTo(DecodeError.WRONG_LENGTH);
  }

  @Test
  void headerLongerThanThirtyTwoBytesIsTooLongWhateverItsVersion() {
    Decoded decoded = new Decoded();
    assertThat(TimingHeader.decode(Arrays.copyOf(valid(), 33), decoded))
        .isEqualTo(DecodeError.TOO_LONG);
    assertThat(TimingHeader.decode(withByte(Arrays.copyOf(valid(), 40), 0, 2), decoded))
        .isEqualTo(DecodeError.TOO_LONG);
  }

  @Test
  void versionZeroAndVersionsNewerThanOneAreUnsupported() {
    Decoded decoded = new Decoded();
    for (int version : new int[] {0, 2, 255}) {
      assertThat(TimingHeader.decode(withByte(valid(), 0, version), decoded))
          .as("version %d", version)
          .isEqualTo(DecodeError.UNSUPPORTED_VERSION);
      // A later version may have another length; its version is checked before its length.
      assertThat(TimingHeader.decode(withByte(new byte[24], 0, version), decoded))
          .isEqualTo(DecodeError.UNSUPPORTED_VERSION);
    }
    assertThat(TimingHeader.decode(bytes(0), decoded)).isEqualTo(DecodeError.UNSUPPORTED_VERSION);
  }

  @Test
  void reservedFlagBitsAreRejected() {
    for (int flags : new int[] {0x02, 0x03, 0x80, 0xff}) {
      assertThat(TimingHeader.decode(withByte(valid(), 1, flags), new Decoded()))
          .as("flags 0x%02x", flags)
          .isEqualTo(DecodeError.RESERVED_FLAGS);
    }
    assertThat(TimingHeader.decode(withByte(valid(), 1, 0x00), new Decoded()))
        .isEqualTo(DecodeError.NONE);
  }

  @Test
  void zeroOrNegativeSendTimeIsRejected() {
    assertThat(TimingHeader.decode(withLong(valid(), 2, 0), new Decoded()))
        .isEqualTo(DecodeError.NON_POSITIVE_TIME);
    assertThat(TimingHeader.decode(withLong(valid(), 2, -1), new Decoded()))
        .isEqualTo(DecodeError.NON_POSITIVE_TIME);
    assertThat(TimingHeader.decode(withLong(valid(), 2, Long.MIN_VALUE), new Decoded()))
        .isEqualTo(DecodeError.NON_POSITIVE_TIME);
  }

  @Test
  void zeroInstanceIdIsRejected() {
    assertThat(TimingHeader.decode(withLong(valid(), 10, 0), new Decoded()))
        .isEqualTo(DecodeError.ZERO_INSTANCE_ID);
  }

  @Test
  void failedDecodeResetsAPreviouslyValidHolder() {
    Decoded decoded = new Decoded();
    TimingHeader.decode(valid(), decoded);
    assertThat(decoded.isValid()).isTrue();

    assertThat(TimingHeader.decode(withLong(valid(), 10, 0), decoded))
        .isEqualTo(DecodeError.ZERO_INSTANCE_ID);

    assertThat(decoded.isValid()).isFalse();
    assertThat(decoded.version()).isZero();
    assertThat(decoded.sampled()).isFalse();
    assertThat(decoded.sendEpochMicros()).isZero();
    assertThat(decoded.producerInstanceId()).isZero();
    assertThat(decoded).hasToString("Decoded{invalid}");
  }

  @Test
  void newHolderIsNotValid() {
    Decoded decoded = new Decoded();
    assertThat(decoded.isValid()).isFalse();
    assertThat(decoded.sendEpochMicros()).isZero();
  }

  @Test
  void reusedHolderHoldsTheLastDecodedHeader() {
    Decoded decoded = new Decoded();
    assertThat(TimingHeader.decode(TimingHeader.encode(5, 6, true), decoded))
        .isEqualTo(DecodeError.NONE);
    assertThat(TimingHeader.decode(TimingHeader.encode(7, 8, false), decoded))
        .isEqualTo(DecodeError.NONE);

    assertThat(decoded.sendEpochMicros()).isEqualTo(7);
    assertThat(decoded.producerInstanceId()).isEqualTo(8);
    assertThat(decoded.sampled()).isFalse();
    assertThat(decoded).hasToString("Decoded{v1 unsampled sendEpochMicros=7 producerInstanceId=8}");
  }

  @Test
  void decodingWithoutAHolderOnlyValidates() {
    assertThat(TimingHeader.decode(valid(), null)).isEqualTo(DecodeError.NONE);
    assertThat(TimingHeader.decode(null, null)).isEqualTo(DecodeError.MISSING);
    assertThat(TimingHeader.decode(bytes(9), null)).isEqualTo(DecodeError.UNSUPPORTED_VERSION);
  }

  @Test
  void decodingNeverThrowsForRandomBytesAndValidHeadersReencodeIdentically() {
    Random random = new Random(0x74696d65L);
    Decoded decoded = new Decoded();
    Set<DecodeError> seen = new HashSet<>();
    int valid = 0;
    for (int i = 0; i < 1_000_000; i++) {
      byte[] value = new byte[random.nextInt(41)];
      random.nextBytes(value);
      // Bias towards almost-valid headers so that the later checks are reached too.
      if (value.length > 0 && random.nextBoolean()) {
        value[0] = 1;
        if (value.length > 1 && random.nextBoolean()) {
          value[1] &= 0x01;
        }
        if (random.nextInt(4) == 0) {
          value = Arrays.copyOf(value, TimingHeader.V1_LENGTH);
          value[1] &= 0x01;
        }
      }
      DecodeError error;
      try {
        error = TimingHeader.decode(value, decoded);
      } catch (RuntimeException e) {
        throw new AssertionError("decode threw for " + Arrays.toString(value), e);
      }
      seen.add(error);
      if (error == DecodeError.NONE) {
        valid++;
        assertThat(
                TimingHeader.encode(
                    decoded.sendEpochMicros(), decoded.producerInstanceId(), decoded.sampled()))
            .as("re-encoding %s", Arrays.toString(value))
            .containsExactly(value);
      } else if (decoded.isValid()) {
        throw new AssertionError("holder valid after " + error + " for " + Arrays.toString(value));
      }
    }
    assertThat(valid).isGreaterThan(10_000);
    assertThat(seen)
        .contains(
            DecodeError.NONE,
            DecodeError.EMPTY,
            DecodeError.TOO_LONG,
            DecodeError.UNSUPPORTED_VERSION,
            DecodeError.WRONG_LENGTH,
            DecodeError.RESERVED_FLAGS,
            DecodeError.NON_POSITIVE_TIME);
  }

  @Test
  void sendTimeWithinTheAllowedWindowIsPlausible() {
    long now = SEND_EPOCH_MICROS;
    assertThat(TimingHeader.checkPlausible(now, now, 0, 0)).isEqualTo(DecodeError.NONE);
    assertThat(TimingHeader.checkPlausible(now + 1000, now, 1000, 0)).isEqualTo(DecodeError.NONE);
    assertThat(TimingHeader.checkPlausible(now - 5000, now, 0, 5000)).isEqualTo(DecodeError.NONE);
  }

  @Test
  void sendTimeTooFarAheadOfTheConsumerClockIsFutureTime() {
    long now = SEND_EPOCH_MICROS;
    assertThat(TimingHeader.checkPlausible(now + 1001, now, 1000, 60_000_000))
        .isEqualTo(DecodeError.FUTURE_TIME);
    assertThat(TimingHeader.checkPlausible(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, 0))
        .isEqualTo(DecodeError.FUTURE_TIME);
  }

  @Test
  void sendTimeTooFarBehindTheConsumerClockIsTooOld() {
    long now = SEND_EPOCH_MICROS;
    assertThat(TimingHeader.checkPlausible(now - 5001, now, 1000, 5000))
        .isEqualTo(DecodeError.TOO_OLD);
    assertThat(TimingHeader.checkPlausible(Long.MIN_VALUE, Long.MAX_VALUE, 0, Long.MAX_VALUE))
        .isEqualTo(DecodeError.TOO_OLD);
    assertThat(TimingHeader.checkPlausible(1, Long.MAX_VALUE, 0, Long.MAX_VALUE))
        .isEqualTo(DecodeError.NONE);
  }

  @Test
  void decodeErrorIdsAreStableLowercaseAndUnique() {
    List<String> ids = new ArrayList<>();
    for (DecodeError error : DecodeError.values()) {
      assertThat(error.id()).matches("[a-z]+(-[a-z]+)*");
      assertThat(error.id()).isEqualTo(error.name().toLowerCase().replace('_', '-'));
      assertThat(error.message()).isNotBlank();
      ids.add(error.id());
    }
    assertThat(ids)
        .doesNotHaveDuplicates()
        .containsExactly(
            "none",
            "missing",
            "empty",
            "too-long",
            "unsupported-version",
            "wrong-length",
            "reserved-flags",
            "non-positive-time",
            "zero-instance-id",
            "future-time",
            "too-old");
  }
}
