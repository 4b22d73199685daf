package dev.klat.collector.security;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The tokens a listener accepts, from a file of {@code name=token} lines ({@code #} starts a
 * comment line), read again when it changes. Only each token's SHA-256 is kept; a presented token
 * is hashed and compared with every kept hash in constant time ({@link MessageDigest#isEqual}), so
 * that neither the comparison nor the position of the match tells anything about a token. Tokens
 * appear in no message and no log line; the name stands for its token in the counts.
 */
public final class BearerTokens {
  /** The most tokens a file may hold: the names are a label of the auth counts. */
  static final int MAX_TOKENS = 1000;

  static final int MAX_TOKEN_CHARS = 4096;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  // RFC 6750's b64token: what a bearer token may be made of.
  private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");
  private static final String SCHEME = "Bearer ";

  /** How a request's credentials came out. */
  public enum Result {
    ACCEPTED("accepted"),
    MISSING("missing"),
    MALFORMED("malformed"),
    UNKNOWN("unknown");

    /** The {@code result} label. */
    public final String id;

    Result(String id) {
      this.id = id;
    }
  }

  /** A check's result, with the name of the token when it was accepted (else empty). */
  public record Check(Result result, String tokenName) {
    boolean accepted() {
      return result == Result.ACCEPTED;
    }
  }

  private record Entry(String name, byte[] sha256) {}

  private volatile List<Entry> entries;
  private final WatchedFiles<List<Entry>> file;

  private BearerTokens(String setting, Path path) {
    file = new WatchedFiles<>(setting, List.of(path), c -> parse(c.get(0)), e -> entries = e);
  }

  /**
   * Reads the tokens file named by {@code setting}.
   *
   * @throws IllegalArgumentException naming the setting and the line when it does not parse
   */
  public static BearerTokens load(String setting, Path path) {
    return new BearerTokens(setting, path);
  }

  /** Reads the file again, and uses it from the next request on if it changed. */
  public void reloadIfChanged() {
    file.reloadIfChanged();
  }

  /** The setting that names the file. */
  public String setting() {
    return file.setting();
  }

  /** Changed contents of the file that could not be loaded. */
  public long failures() {
    return file.failures();
  }

  /** Checks an {@code Authorization} header value (null when the request had none). */
  public Check check(String authorization) {
    if (authorization == null || authorization.isEmpty()) {
      return new Check(Result.MISSING, "");
    }
    if (authorization.length() > SCHEME.length() + MAX_TOKEN_CHARS
        || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return new Check(Result.MALFORMED, "");
    }
    String token = authorization.substring(SCHEME.length()).trim();
    if (!TOKEN.matcher(token).matches()) {
      return new Check(Result.MALFORMED, "");
    }
    byte[] presented = sha256(token);
    String name = null;
    // Every entry is compared, the match or not: the time taken does not depend on which matched.
    for (Entry e : entries) {
      if (MessageDigest.isEqual(presented, e.sha256()) && name == null) {
        name = e.name();
      }
    }
    return name == null ? new Check(Result.UNKNOWN, "") : new Check(Result.ACCEPTED, name);
  }

  /** The token names of the loaded file, in its order. */
  public List<String> names() {
    List<String> names = new ArrayList<>();
    for (Entry e : entries) {
      names.add(e.name());
    }
    return names;
  }

  private static List<Entry> parse(byte[] content) {
    List<Entry> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> hashes = new HashSet<>();
    String[] lines = new String(content, StandardCharsets.UTF_8).split("\r?\n");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int lineNumber = i + 1;
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("line " + lineNumber + " is not name=token");
      }
      String name = line.substring(0, eq).strip();
      String token = line.substring(eq + 1).strip();
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "line " + lineNumber + ": a token's name is 1 to 64 letters, digits, '.', '_' or '-'");
      }
      if (token.length() > MAX_TOKEN_CHARS || !TOKEN.matcher(token).matches()) {
        throw new IllegalArgumentException(
            "line "
                + lineNumber
                + " ("
                + name
                + "): a token is 1 to "
                + MAX_TOKEN_CHARS
                + " letters, digits or -._~+/ (RFC 6750), for example from"
                + " `openssl rand -hex 32`");
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException("line " + lineNumber + ": the name " + name + " again");
      }
      byte[] hash = sha256(token);
      if (!hashes.add(java.util.HexFormat.of().formatHex(hash))) {
        throw new IllegalArgumentException(
            "line " + lineNumber + " (" + name + "): the same token as an earlier line");
      }
      if (out.size() == MAX_TOKENS) {
        throw new IllegalArgumentException("more than " + MAX_TOKENS + " tokens");
      }
      out.add(new Entry(name, hash));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no name=token line: every request would be refused");
    }
    return List.copyOf(out);
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
