package dev.klat.collector.security;

import dev.klat.testsupport.tls.TestPki;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** Client-side TLS for the tests: trusting a test CA, with or without a client certificate. */
public final class TlsClients {
  private TlsClients() {}

  /** Trusts {@code pki}'s CA; presents {@code client} (null for no certificate). */
  public static SSLContext context(TestPki pki, TestPki.Issued client) throws Exception {
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(load(pki.trustStore()));
    KeyManagerFactory keys = null;
    if (client != null) {
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(load(client.keyStore()), TestPki.STORE_PASSWORD.toCharArray());
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  /** The certificate a new handshake with 127.0.0.1:{@code port} presents (no session reuse). */
  public static X509Certificate serverCertificate(TestPki pki, int port) throws Exception {
    try (SSLSocket socket =
        (SSLSocket) context(pki, null).getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  private static KeyStore load(java.nio.file.Path file) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, TestPki.STORE_PASSWORD.toCharArray());
    }
    return store;
  }
}
