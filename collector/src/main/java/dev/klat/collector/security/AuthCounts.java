package dev.klat.collector.security;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requests checked for a token, by listener, result and (when accepted) token name. The names come
 * from the tokens files, at most {@link BearerTokens#MAX_TOKENS} a file; names that came and went
 * across reloads are capped too, the ones past the cap counted as {@code _other}.
 */
public final class AuthCounts {
  static final int MAX_SERIES = 4 * BearerTokens.MAX_TOKENS;
  static final String OTHER = "_other";

  /** One series: its labels' values and its count. */
  public record Count(String listener, String result, String token, long count) {}

  private record Key(String listener, String result, String token) {}

  private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();

  /** Counts one request's check on {@code listener}. */
  public void add(String listener, BearerTokens.Check check) {
    Key key = new Key(listener, check.result().id, check.tokenName());
    LongAdder adder = counts.get(key);
    if (adder == null) {
      if (counts.size() >= MAX_SERIES) {
        key = new Key(listener, check.result().id, OTHER);
      }
      adder = counts.computeIfAbsent(key, k -> new LongAdder());
    }
    adder.increment();
  }

  /** Every series so far. */
  public List<Count> counts() {
    List<Count> out = new ArrayList<>();
    counts.forEach((k, v) -> out.add(new Count(k.listener(), k.result(), k.token(), v.sum())));
    return out;
  }
}
