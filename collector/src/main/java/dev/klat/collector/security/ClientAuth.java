package dev.klat.collector.security;

import java.util.Locale;

/** Whether a TLS listener asks for a client certificate: not at all, optionally, or required. */
public enum ClientAuth {
  NONE,
  WANT,
  NEED;

  /** {@code none}, {@code want} or {@code need}, in any case. */
  public static ClientAuth of(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
