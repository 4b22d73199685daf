package dev.klat.agentcore.auth;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * A socket factory whose sockets check, during the handshake, that the server's certificate names
 * the host connected to (endpoint identification {@code HTTPS}, RFC 2818). {@code
 * HttpsURLConnection} does this itself only with its default host name verifier, which an
 * application may have replaced JVM-wide ({@code setDefaultHostnameVerifier}); the exporter's
 * connections keep the check whatever the application did.
 */
public final class HostnameCheckingSocketFactory extends SSLSocketFactory {
  private final SSLSocketFactory delegate;

  public HostnameCheckingSocketFactory(SSLSocketFactory delegate) {
    this.delegate = delegate;
  }

  @Override
  public String[] getDefaultCipherSuites() {
    return delegate.getDefaultCipherSuites();
  }

  @Override
  public String[] getSupportedCipherSuites() {
    return delegate.getSupportedCipherSuites();
  }

  @Override
  public Socket createSocket(Socket socket, String host, int port, boolean autoClose)
      throws IOException {
    return checking(delegate.createSocket(socket, host, port, autoClose));
  }

  @Override
  public Socket createSocket() throws IOException {
    return checking(delegate.createSocket());
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return checking(delegate.createSocket(host, port));
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    return checking(delegate.createSocket(host, port, localHost, localPort));
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return checking(delegate.createSocket(host, port));
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return checking(delegate.createSocket(address, port, localAddress, localPort));
  }

  private static Socket checking(Socket socket) {
    if (socket instanceof SSLSocket) {
      SSLSocket ssl = (SSLSocket) socket;
      SSLParameters parameters = ssl.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      ssl.setSSLParameters(parameters);
    }
    return socket;
  }
}
