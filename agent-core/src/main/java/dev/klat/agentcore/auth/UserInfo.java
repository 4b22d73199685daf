package dev.klat.agentcore.auth;

import dev.klat.model.SettingValueException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The user info of an endpoint URL ({@code https://user:password@host:4318}), which the agents send
 * as HTTP basic authentication ({@code Authorization: Basic base64(user:password)}, RFC 7617),
 * percent-decoded first; the URL they connect to, and every message, goes without it. A header list
 * that sets {@code Authorization} itself wins over the user info.
 */
public final class UserInfo {

  private UserInfo() {}

  /**
   * The {@code Authorization} value for the raw (still percent-encoded) user info of a URL.
   *
   * @throws SettingValueException if its percent escapes are bad, never quoting it
   */
  public static String basicAuthorization(String rawUserInfo) {
    String decoded;
    try {
      decoded = ExportHeaders.percentDecode(rawUserInfo);
    } catch (IllegalArgumentException e) {
      throw new SettingValueException(
          "a URL whose user info is user:password, percent-encoded (" + e.getMessage() + ")");
    }
    return "Basic " + Base64.getEncoder().encodeToString(decoded.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code url} without its user info; as it is when it has none. */
  public static String strip(String url) {
    int[] bounds = bounds(url);
    return bounds == null ? url : url.substring(0, bounds[0]) + url.substring(bounds[1] + 1);
  }

  /**
   * The user info of {@code url}, still percent-encoded, or null: what lies between {@code //} and
   * the last {@code @} of the authority, as {@link #strip} removes it (so that a raw {@code @} in a
   * password cannot move the host).
   */
  public static String raw(String url) {
    int[] bounds = bounds(url);
    return bounds == null ? null : url.substring(bounds[0], bounds[1]);
  }

  /** The start of the user info and the index of the '@' that ends it; null without one. */
  private static int[] bounds(String url) {
    int authority = url.indexOf("//");
    if (authority < 0) {
      return null;
    }
    int start = authority + 2;
    int end = url.indexOf('/', start);
    if (end < 0) {
      end = url.length();
    }
    int at = url.lastIndexOf('@', end - 1);
    return at < start ? null : new int[] {start, at};
  }
}
