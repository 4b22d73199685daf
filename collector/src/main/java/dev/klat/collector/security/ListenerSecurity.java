package dev.klat.collector.security;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;

/**
 * How one listener is secured: TLS (with its client-auth mode) or not, tokens or not. The listeners
 * ask it for their server ({@link #httpServer}, {@link #grpc}), which checks the token before any
 * handler runs.
 */
public final class ListenerSecurity {
  /** Plain HTTP, no token: what a listener is without settings. */
  public static final ListenerSecurity PLAIN =
      new ListenerSecurity("", null, ClientAuth.NONE, null, null);

  private final String listener;
  private final ServerTls tls;
  private final ClientAuth clientAuth;
  private final BearerTokens tokens;
  private final AuthCounts counts;

  /**
   * @param listener the {@code listener} label of the auth counts
   * @param tls null for plain HTTP
   * @param tokens null when no token is asked for
   */
  public ListenerSecurity(
      String listener,
      ServerTls tls,
      ClientAuth clientAuth,
      BearerTokens tokens,
      AuthCounts counts) {
    this.listener = listener;
    this.tls = tls;
    this.clientAuth = clientAuth;
    this.tokens = tokens;
    this.counts = counts;
  }

  /** Whether the listener speaks TLS. */
  public boolean tls() {
    return tls != null;
  }

  /** Whether the listener asks for a token. */
  public boolean tokens() {
    return tokens != null;
  }

  /**
   * An unstarted HTTP server on {@code address}, HTTPS when TLS is on; when tokens are on, every
   * context created on it needs one, except those of {@code openPaths} (exact context paths).
   */
  public HttpServer httpServer(InetSocketAddress address, int backlog, String... openPaths)
      throws IOException {
    HttpServer server;
    if (tls == null) {
      server = HttpServer.create(address, backlog);
    } else {
      HttpsServer https = HttpsServer.create(address, backlog);
      https.setHttpsConfigurator(tls.httpsConfigurator(clientAuth));
      server = https;
    }
    return tokens == null
        ? server
        : new GuardedHttpServer(
            server, new TokenFilter(listener, tokens, counts), Set.of(openPaths));
  }

  /** Puts TLS and the token check, as configured, on a gRPC server; returns it. */
  public NettyServerBuilder grpc(NettyServerBuilder builder) throws IOException {
    if (tls != null) {
      builder.sslContext(tls.grpcContext(clientAuth));
    }
    if (tokens != null) {
      builder.intercept(new TokenInterceptor(listener, tokens, counts));
    }
    return builder;
  }

  /**
   * The start-up warning for a listener bound to {@code bound}, or null: one line when it is
   * reachable from other hosts (not loopback) without TLS or without tokens, as the OpenTelemetry
   * Collector warns.
   *
   * @param name how the line names the listener ({@code OTLP/HTTP})
   * @param host the host as configured (the bound address may be its IPv6 form)
   * @param tokensSetting the key that turns its tokens on
   * @param exposes what a stranger could do with it
   */
  public String exposureWarning(
      String name, String host, InetSocketAddress bound, String tokensSetting, String exposes) {
    InetAddress address = bound.getAddress();
    if ((address != null && address.isLoopbackAddress()) || (tls != null && tokens != null)) {
      return null;
    }
    String missing =
        tls == null && tokens == null
            ? "without TLS (tls.cert-file, tls.key-file) and without tokens (" + tokensSetting + ")"
            : tls == null
                ? "without TLS (tls.cert-file, tls.key-file)"
                : "without tokens (" + tokensSetting + ")";
    return name
        + " listens on "
        + host
        + ":"
        + bound.getPort()
        + ", reachable from other hosts, "
        + missing
        + ": "
        + exposes;
  }
}
