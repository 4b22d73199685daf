package dev.klat.agentcore.auth;

/**
 * Keeps credentials out of messages: the user info of a URL (as given by a user, valid or not) and
 * a value that may be a secret are replaced before anything is logged.
 */
public final class Secrets {
  /** What a hidden part of a message reads. */
  public static final String MASK = "***";

  private Secrets() {}

  /**
   * {@code url} with whatever lies between {@code //} and the last {@code @} before the next {@code
   * /} masked: {@code https://user:pass@host:4318} reads {@code https://***@host:4318}. Works on
   * any text, a URL that does not parse included, since that is what an error quotes.
   */
  public static String redactUserInfo(String url) {
    if (url == null) {
      return null;
    }
    int authority = url.indexOf("//");
    if (authority < 0) {
      // No authority: an '@' can still be a user's mistake of "user:pass@host".
      int at = url.lastIndexOf('@');
      return at < 0 ? url : MASK + url.substring(at);
    }
    int start = authority + 2;
    int end = url.indexOf('/', start);
    if (end < 0) {
      end = url.length();
    }
    int at = url.lastIndexOf('@', end - 1);
    if (at < start) {
      return url;
    }
    return url.substring(0, start) + MASK + url.substring(at);
  }

  /** A description of a secret value that says how long it is, not what it is. */
  public static String describeHidden(String value) {
    return value == null ? "(none)" : "(hidden, " + value.length() + " characters)";
  }
}
