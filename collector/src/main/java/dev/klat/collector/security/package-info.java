/**
 * What secures the collector's three listeners (OTLP/HTTP, OTLP/gRPC, admin): TLS from PEM files
 * ({@link ServerTls}, with client certificates checked against a CA when asked), bearer tokens from
 * a {@code name=token} file ({@link BearerTokens}), both re-read when their files change, and
 * {@link ListenerSecurity}, the one object each listener asks for its server socket and its
 * authentication. Only the JDK's own TLS is used (for gRPC through Netty's JDK provider), so that a
 * rotated certificate is seen by the next handshake of every listener.
 */
package dev.klat.collector.security;
