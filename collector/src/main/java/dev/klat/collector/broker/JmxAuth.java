package dev.klat.collector.broker;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import javax.management.remote.JMXConnector;
import javax.net.ssl.SSLSocketFactory;
import javax.rmi.ssl.SslRMIClientSocketFactory;

/**
 * How the collector logs in to the brokers' JMX agents ({@code brokers.jmx-username}, {@code
 * brokers.jmx-password-file}) and whether it speaks TLS to them ({@code brokers.jmx-ssl}). Only the
 * connection's environment changes: the JVM-wide RMI socket factory stays {@link
 * JmxSource.TimeoutSockets}, for the brokers read without TLS.
 *
 * @param username the JMX user, or null for none
 * @param password its password
 * @param ssl whether the registry lookup and the connection use TLS
 */
public record JmxAuth(String username, SecretFile password, boolean ssl) {
  /** No credentials, no TLS. */
  public static final JmxAuth NONE = new JmxAuth(null, null, false);

  /**
   * @throws IllegalArgumentException when only one of username and password file is given
   */
  public static JmxAuth of(String username, SecretFile password, boolean ssl) {
    String user = username.trim();
    if (user.isEmpty() != (password == null)) {
      throw new IllegalArgumentException(
          "brokers.jmx-username and brokers.jmx-password-file go together");
    }
    return new JmxAuth(user.isEmpty() ? null : user, password, ssl);
  }

  /**
   * Puts the credentials and, with TLS, the registry's socket factory into a connection's {@code
   * environment}.
   */
  void apply(Map<String, Object> environment, int connectTimeoutMs, int readTimeoutMs) {
    if (username != null) {
      environment.put(JMXConnector.CREDENTIALS, new String[] {username, password.value()});
    }
    if (ssl) {
      // The registry lookup over TLS; the connection then uses the socket factory in the stub the
      // broker sent, which with com.sun.management.jmxremote.ssl=true is TLS too, and the check
      // below refuses a stub that is not.
      environment.put(
          "com.sun.jndi.rmi.factory.socket",
          new TimeoutSslSockets(connectTimeoutMs, readTimeoutMs));
      environment.put("jmx.remote.x.check.stub", "true");
    }
  }

  @Override
  public String toString() {
    return (username == null ? "no credentials" : "user " + username) + (ssl ? ", TLS" : "");
  }

  /**
   * The JDK's RMI TLS sockets (trust from the JVM's default trust store, {@code
   * javax.net.ssl.trustStore}), connected with a timeout and reading with one, as {@link
   * JmxSource.TimeoutSockets} does without TLS.
   */
  static final class TimeoutSslSockets extends SslRMIClientSocketFactory {
    private static final long serialVersionUID = 1L;
    private final int connectTimeoutMs;
    private final int readTimeoutMs;

    TimeoutSslSockets(int connectTimeoutMs, int readTimeoutMs) {
      this.connectTimeoutMs = connectTimeoutMs;
      this.readTimeoutMs = readTimeoutMs;
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      Socket plain = new Socket();
      try {
        plain.connect(new InetSocketAddress(host, port), connectTimeoutMs);
        plain.setSoTimeout(readTimeoutMs);
        Socket tls =
            ((SSLSocketFactory) SSLSocketFactory.getDefault())
                .createSocket(plain, host, port, true);
        tls.setSoTimeout(readTimeoutMs);
        return tls;
      } catch (IOException | RuntimeException e) {
        plain.close();
        throw e;
      }
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof TimeoutSslSockets o
          && o.connectTimeoutMs == connectTimeoutMs
          && o.readTimeoutMs == readTimeoutMs;
    }

    @Override
    public int hashCode() {
      return 31 * connectTimeoutMs + readTimeoutMs;
    }
  }
}
