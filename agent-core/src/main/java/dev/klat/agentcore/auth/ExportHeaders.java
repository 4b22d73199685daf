package dev.klat.agentcore.auth;

import dev.klat.model.SettingValueException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads {@code klat.export.headers} in the format OpenTelemetry specifies for {@code
 * OTEL_EXPORTER_OTLP_HEADERS}: the W3C Baggage list without its {@code ;} properties, {@code
 * k1=v1,k2=v2}. Each entry is split at its first {@code =}; key and value are trimmed of spaces and
 * tabs; the value is percent-decoded as UTF-8 (RFC 3986: {@code +} stays a plus, {@code %20} is a
 * space), so a value may carry {@code ,} as {@code %2C}. An empty entry (a trailing comma) is
 * skipped.
 *
 * <p>Where the specification lets an SDK discard a malformed variable and report it, klat refuses
 * the whole setting at start-up: an entry without {@code =} or without a key, a key that is not an
 * HTTP token, a bad percent escape, a value that decodes to invalid UTF-8 or to a control character
 * (a line break would inject a header), a name given twice, and names that the HTTP client sets or
 * refuses itself ({@code Content-Type}, {@code Host}, ...). The error names the entry by its
 * position and never quotes a key or value, since a user who forgot the {@code =} wrote the secret
 * where the key goes.
 */
public final class ExportHeaders {

  /** Longer values are refused: a header list is a few tokens, not a document. */
  static final int MAX_CHARS = 16 * 1024;

  // Set by the sender, or by HttpURLConnection itself (which drops them silently when they come
  // from a caller): a user's value there would be ignored or break the request.
  private static final String[] RESERVED = {
    "content-type",
    "content-encoding",
    "content-length",
    "transfer-encoding",
    "host",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
    "expect",
    "via"
  };

  private ExportHeaders() {}

  /**
   * Parses a header list; null or blank is no header.
   *
   * @return the headers in the order given, names as written
   * @throws SettingValueException saying which entry is wrong and how, without quoting it
   */
  public static Map<String, String> parse(String list) {
    if (list == null || list.trim().isEmpty()) {
      return Collections.emptyMap();
    }
    if (list.length() > MAX_CHARS) {
      throw invalid("at most " + MAX_CHARS + " characters (" + list.length() + " given)");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    Map<String, Boolean> seen = new LinkedHashMap<>();
    String[] entries = list.split(",", -1);
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i];
      if (trim(entry).isEmpty()) {
        continue;
      }
      String where = "entry " + (i + 1) + " of " + entries.length;
      int eq = entry.indexOf('=');
      if (eq < 0) {
        throw invalid(where + " has no '=' (write name=value; a ',' inside a value is %2C)");
      }
      String name = trim(entry.substring(0, eq));
      if (name.isEmpty()) {
        throw invalid(where + " has no header name before its '='");
      }
      if (!isToken(name)) {
        throw invalid(
            where + " has a header name with a character HTTP does not allow in one (a space?)");
      }
      String lower = name.toLowerCase(Locale.ROOT);
      for (String reserved : RESERVED) {
        if (reserved.equals(lower)) {
          throw invalid(where + " sets " + name + ", which the exporter sets itself");
        }
      }
      if (seen.put(lower, Boolean.TRUE) != null) {
        throw invalid(where + " names a header that an earlier entry already sets");
      }
      String value = decode(trim(entry.substring(eq + 1)), where);
      headers.put(name, value);
    }
    return Collections.unmodifiableMap(headers);
  }

  /** Whether {@code headers} has {@code name}, in any case. */
  public static boolean has(Map<String, String> headers, String name) {
    for (String key : headers.keySet()) {
      if (key.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  private static String decode(String value, String where) {
    String decoded;
    try {
      decoded = percentDecode(value);
    } catch (IllegalArgumentException e) {
      throw invalid(where + " has " + e.getMessage() + " in its value");
    }
    checkDecoded(decoded, where);
    return decoded;
  }

  /**
   * {@code value} percent-decoded as UTF-8, RFC 3986 style: {@code +} stays a plus.
   *
   * @throws IllegalArgumentException saying what is wrong, never quoting the value
   */
  static String percentDecode(String value) {
    if (value.indexOf('%') < 0) {
      return value;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c != '%') {
        int next = Character.isHighSurrogate(c) && i + 1 < value.length() ? i + 2 : i + 1;
        byte[] utf8 = value.substring(i, next).getBytes(StandardCharsets.UTF_8);
        bytes.write(utf8, 0, utf8.length);
        i = next - 1;
        continue;
      }
      int high = i + 1 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
      int low = i + 2 < value.length() ? Character.digit(value.charAt(i + 2), 16) : -1;
      if (high < 0 || low < 0) {
        throw new IllegalArgumentException("a '%' not followed by two hex digits");
      }
      bytes.write(high * 16 + low);
      i += 2;
    }
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer chars = utf8.decode(ByteBuffer.wrap(bytes.toByteArray()));
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("percent escapes that are not UTF-8");
    }
  }

  private static void checkDecoded(String value, String where) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        throw invalid(where + " has a control character (a line break?) in its value");
      }
    }
  }

  /** RFC 7230 token: visible ASCII except separators. */
  private static boolean isToken(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static String trim(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
      end--;
    }
    return s.substring(start, end);
  }

  private static SettingValueException invalid(String problem) {
    return new SettingValueException(
        "a list of name=value HTTP headers, such as Authorization=Bearer%20<token>; " + problem);
  }
}
