package dev.klat.model;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Strings of random length drawn from an alphabet, for the tests that compare a hand-written
 * scanner with the regular expression it replaced: the same seed gives the same strings.
 */
final class RandomStrings {

  private RandomStrings() {}

  /** {@code count} strings of 0 to {@code maxLength - 1} characters of {@code alphabet}. */
  static List<String> of(long seed, int count, String alphabet, int maxLength) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> strings = new ArrayList<>(count);
    StringBuilder sb = new StringBuilder(maxLength);
    for (int i = 0; i < count; i++) {
      sb.setLength(0);
      int length = random.nextInt(maxLength);
      for (int j = 0; j < length; j++) {
        sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      strings.add(sb.toString());
    }
    return strings;
  }
}
