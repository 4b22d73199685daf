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
    int authority = url.indexOf("//");
    if (authority < 0) {
      return url;
    }
    int start = authority + 2;
    int end = url.indexOf('/', start);
    if (end < 0) {
      end = url.length();
    }
    int at = url.lastIndexOf('@', end - 1);
    return at < start ? url : url.substring(0, start) + url.substring(at + 1);
  }
}
