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

  @Override
  public String description() {
    return "bearer token check (" + tokensSetting + ")";
  }
}
