package dev.klat.collector.security;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * An HTTP(S) server whose every context gets the token check as it is created, except the open
 * paths: the listeners create their contexts as before and cannot forget one.
 */
final class GuardedHttpServer extends HttpServer {
  private final HttpServer server;
  private final TokenFilter filter;
  private final Set<String> openPaths;

  GuardedHttpServer(HttpServer server, TokenFilter filter, Set<String> openPaths) {
    this.server = server;
    this.filter = filter;
    this.openPaths = openPaths;
  }

  @Override
  public HttpContext createContext(String path, HttpHandler handler) {
    return guard(server.createContext(path, handler));
  }

  @Override
  public HttpContext createContext(String path) {
    return guard(server.createContext(path));
  }

  private HttpContext guard(HttpContext context) {
    if (!openPaths.contains(context.getPath())) {
      context.getFilters().add(filter);
    }
    return context;
  }

  @Override
  public void bind(InetSocketAddress address, int backlog) throws IOException {
    server.bind(address, backlog);
  }

  @Override
  public void start() {
    server.start();
  }

  @Override
  public void setExecutor(Executor executor) {
    server.setExecutor(executor);
  }

  @Override
  public Executor getExecutor() {
    return server.getExecutor();
  }

  @Override
  public void stop(int delaySeconds) {
    server.stop(delaySeconds);
  }

  @Override
  public void removeContext(String path) {
    server.removeContext(path);
  }

  @Override
  public void removeContext(HttpContext context) {
    server.removeContext(context);
  }

  @Override
  public InetSocketAddress getAddress() {
    return server.getAddress();
  }
}
