package dev.klat.collector.security;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Lets a request through the JDK's HTTP server only with an accepted {@code Authorization: Bearer}
 * token; answers 401 with {@code WWW-Authenticate: Bearer} otherwise (RFC 6750), before any body is
 * read.
 */
final class TokenFilter extends Filter {
  private final String listener;
  private final BearerTokens tokens;
  private final AuthCounts counts;
  private final String tokensSetting;

  TokenFilter(String listener, BearerTokens tokens, AuthCounts counts) {
    this.listener = listener;
    this.tokens = tokens;
    this.counts = counts;
    this.tokensSetting = tokens.setting();
  }

  @Override
  public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
    BearerTokens.Check check = tokens.check(exchange.getRequestHeaders().getFirst("Authorization"));
    counts.add(listener, check);
    if (check.accepted()) {
      chain.doFilter(exchange);
      return;
    }
    exchange
        .getResponseHeaders()
        .set(
            "WWW-Authenticate",
            check.result() == BearerTokens.Result.MISSING
                ? "Bearer realm=\"klat\""
                : "Bearer realm=\"klat\", error=\"invalid_token\"");
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    byte[] body =
        ("unauthorized ("
                + check.result().id
                + " token): send Authorization: Bearer <token>, a token of "
                + tokensSetting
                + "\n")
            .getBytes(StandardCharsets.UTF_8);
    discardBody(exchange);
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(401, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
    // An unread request body is drained up to the server's small limit, or the connection closed.
    exchange.close();
  }

  /** The most body bytes read and dropped before a 401; beyond it the connection is closed. */
  static final long DISCARD_LIMIT_BYTES = 1024 * 1024;

  // A client still sending when the 401 goes out and the connection closes would see a reset, not
  // the 401, and an OTLP client retries a reset. Reading and dropping an agent's usual export
  // costs no memory; the limit keeps a stranger from making the collector read more.
  private static void discardBody(HttpExchange exchange) {
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    String chunked = exchange.getRequestHeaders().getFirst("Transfer-Encoding");
    if ((length == null || length.trim().equals("0")) && chunked == null) {
      return; // no body: reading would wait for one
    }
    byte[] sink = new byte[16 * 1024];
    long read = 0;
    try {
      java.io.InputStream in = exchange.getRequestBody();
      int n;
      while (read < DISCARD_LIMIT_BYTES && (n = in.read(sink)) >= 0) {
        read += n;
      }
    } catch (IOException ignored) {
      // the client went away
    }
  }

  @Override
  public String description() {
    return "bearer token check (" + tokensSetting + ")";
  }
}
