package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TraceIdsTest {

  private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void formatsTheW3cExample() {
    assertThat(
            TraceIds.traceparent(
                0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, true))
        .isEqualTo(VALID);
    assertThat(TraceIds.traceparent(1, 2, 3, false))
        .isEqualTo("00-00000000000000010000000000000002-0000000000000003-00");
  }

  @Test
  void parsesTheW3cExample() {
    long[] out = new long[4];
    assertThat(TraceIds.parseTraceparent(bytes(VALID), out)).isTrue();
    assertThat(out)
        .containsExactly(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, 1);
  }

  @Test
  void roundTripsRandomIdsAndBothFlags() {
    SplittableRandom random = new SplittableRandom(1);
    long[] out = new long[4];
    for (int i = 0; i < 10_000; i++) {
      long high = random.nextLong();
      long low = random.nextLong();
      long span = random.nextLong();
      if ((high == 0 && low == 0) || span == 0) {
        continue;
      }
      boolean sampled = random.nextBoolean();
      String header = TraceIds.traceparent(high, low, span, sampled);
      assertThat(header).hasSize(TraceIds.TRACEPARENT_LENGTH);
      assertThat(TraceIds.parseTraceparent(bytes(header), out)).isTrue();
      assertThat(out).containsExactly(high, low, span, sampled ? 1 : 0);
    }
  }

  @Test
  void acceptsAFutureVersionWithExtraFieldsAndReadsTheFirstFour() {
    long[] out = new long[4];
    assertThat(
            TraceIds.parseTraceparent(bytes("cc" + VALID.substring(2) + "-what-the-future"), out))
        .isTrue();
    assertThat(out[2]).isEqualTo(0x00f067aa0ba902b7L);
    assertThat(TraceIds.parseTraceparent(bytes("01" + VALID.substring(2)), out)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "00",
        // all-zero trace id, all-zero span id
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        // uppercase hex anywhere
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
        "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        // wrong length
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-010",
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        // bad separators
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ",
        " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        // version ff is invalid, even in the future form
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
        // a future version longer than 55 bytes must continue with '-'
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
        // non-hex
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b.-01",
      })
  void rejectsInvalidValuesAndLeavesTheOutputUntouched(String value) {
    long[] out = {7, 7, 7, 7};
    assertThat(TraceIds.parseTraceparent(bytes(value), out)).as(value).isFalse();
    assertThat(out).containsExactly(7, 7, 7, 7);
  }

  @Test
  void rejectsNullInputAndAShortOutputArray() {
    assertThat(TraceIds.parseTraceparent(null, new long[4])).isFalse();
    assertThat(TraceIds.parseTraceparent(bytes(VALID), null)).isFalse();
    assertThat(TraceIds.parseTraceparent(bytes(VALID), new long[3])).isFalse();
  }

  @Test
  void rejectsRandomGarbageWithoutThrowing() {
    SplittableRandom random = new SplittableRandom(3);
    long[] out = new long[4];
    byte[] garbage = new byte[1000];
    for (int i = 0; i < 1000; i++) {
      for (int j = 0; j < garbage.length; j++) {
        garbage[j] = (byte) random.nextInt(256);
      }
      assertThat(TraceIds.parseTraceparent(garbage, out)).isFalse();
      int length = random.nextInt(70);
      assertThat(TraceIds.parseTraceparent(Arrays.copyOf(garbage, length), out)).isFalse();
    }
  }

  @Test
  void rejectsEverySingleByteCorruptionOfAValidValue() {
    byte[] valid = bytes(VALID);
    long[] out = new long[4];
    for (int i = 0; i < valid.length; i++) {
      for (int b = 0; b < 256; b++) {
        byte[] corrupted = valid.clone();
        corrupted[i] = (byte) b;
        if (corrupted[i] == valid[i]) {
          continue;
        }
        boolean stillValid = isLowerHex(valid[i]) && isLowerHex(corrupted[i]);
        // Changing one hex digit keeps a valid value unless it makes an id or version invalid.
        if (stillValid && i >= 2) {
          continue;
        }
        if (stillValid && i < 2) {
          // Version 00 -> another version is a valid future version of exactly 55 bytes, except ff.
          continue;
        }
        assertThat(TraceIds.parseTraceparent(corrupted, out)).as("byte %d = %d", i, b).isFalse();
      }
    }
  }

  @Test
  void randomIdsAreNeverZero() {
    for (int i = 0; i < 10_000; i++) {
      assertThat(TraceIds.randomNonZeroLong()).isNotZero();
    }
  }

  private static boolean isLowerHex(byte b) {
    return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f');
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
