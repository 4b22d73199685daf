package dev.klat.agentcore.log;

/**
 * Formats epoch milliseconds as {@code 2025-01-31T12:00:00.000Z}, as {@code
 * DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")} in UTC does, for years 0 to 9999.
 *
 * <p>Why not {@code java.time}: building that formatter in {@code premain} loaded about 70 JDK
 * classes and ran their initialisers before the application's {@code main}; this is arithmetic.
 */
final class UtcTimestamp {

  private static final long MILLIS_PER_DAY = 86_400_000L;

  private UtcTimestamp() {}

  static String format(long epochMillis) {
    long days = Math.floorDiv(epochMillis, MILLIS_PER_DAY);
    int millisOfDay = (int) Math.floorMod(epochMillis, MILLIS_PER_DAY);
    // Howard Hinnant's days_from_civil inverse: eras of 400 years, each 146097 days, from
    // 0000-03-01, so that the leap day is the last day of a year.
    long z = days + 719_468L;
    long era = Math.floorDiv(z, 146_097L);
    int dayOfEra = (int) (z - era * 146_097L);
    int yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    int shiftedMonth = (5 * dayOfYear + 2) / 153;
    int day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1;
    int month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
    long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);

    StringBuilder sb = new StringBuilder(24);
    pad(sb, year, 4).append('-');
    pad(sb, month, 2).append('-');
    pad(sb, day, 2).append('T');
    pad(sb, millisOfDay / 3_600_000, 2).append(':');
    pad(sb, millisOfDay / 60_000 % 60, 2).append(':');
    pad(sb, millisOfDay / 1000 % 60, 2).append('.');
    pad(sb, millisOfDay % 1000, 3).append('Z');
    return sb.toString();
  }

  private static StringBuilder pad(StringBuilder sb, long value, int digits) {
    String s = Long.toString(value);
    for (int i = s.length(); i < digits; i++) {
      sb.append('0');
    }
    return sb.append(s);
  }
}
