package dev.klat.collector.security;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The collector's TLS: one certificate and key ({@code tls.cert-file}, {@code tls.key-file}, PEM)
 * and optionally the CA that client certificates must chain to ({@code tls.client-ca-file}), shared
 * by every listener, each with its own client-auth mode. {@link #reloadIfChanged} (called every few
 * seconds) swaps in changed files; a bad change keeps the files loaded before.
 */
public final class ServerTls {
  private static final char[] NO_PASSWORD = new char[0];
  private static final String ALIAS = "klat";

  private final ReloadingKeyManager keys;
  private final ReloadingTrustManager clientCas;
  private final WatchedFiles<X509ExtendedKeyManager> keyFiles;
  private final WatchedFiles<X509ExtendedTrustManager> caFile;
  private final SSLContext jdkContext;

  private ServerTls(Path certFile, Path keyFile, Path clientCaFile) {
    ReloadingKeyManager[] k = {null};
    keyFiles =
        new WatchedFiles<>(
            "tls.cert-file",
            List.of(certFile, keyFile),
            contents -> keyManager(contents.get(0), contents.get(1)),
            m -> {
              if (k[0] == null) {
                k[0] = new ReloadingKeyManager(m);
              } else {
                k[0].set(m);
              }
            });
    keys = k[0];
    if (clientCaFile == null) {
      caFile = null;
      clientCas = null;
    } else {
      ReloadingTrustManager[] t = {null};
      caFile =
          new WatchedFiles<>(
              "tls.client-ca-file",
              List.of(clientCaFile),
              contents -> trustManager(contents.get(0)),
              m -> {
                if (t[0] == null) {
                  t[0] = new ReloadingTrustManager(m);
                } else {
                  t[0].set(m);
                }
              });
      clientCas = t[0];
    }
    try {
      jdkContext = SSLContext.getInstance("TLS");
      jdkContext.init(
          new KeyManager[] {keys}, clientCas == null ? null : new TrustManager[] {clientCas}, null);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no TLS", e);
    }
  }

  /**
   * Loads the files.
   *
   * @param clientCaFile null when no client certificate is checked
   * @throws IllegalArgumentException naming the setting whose file cannot be read or loaded
   */
  public static ServerTls load(Path certFile, Path keyFile, Path clientCaFile) {
    return new ServerTls(certFile, keyFile, clientCaFile);
  }

  /** Whether client certificates can be checked (a client CA is set). */
  public boolean hasClientCa() {
    return clientCas != null;
  }

  /** Reads the files again, and uses them from the next handshake on if they changed. */
  public void reloadIfChanged() {
    keyFiles.reloadIfChanged();
    if (caFile != null) {
      caFile.reloadIfChanged();
    }
  }

  /** Changed files that could not be loaded, by setting ({@code tls.cert-file}, ...). */
  public void failures(java.util.function.BiConsumer<String, Long> out) {
    out.accept(keyFiles.setting(), keyFiles.failures());
    if (caFile != null) {
      out.accept(caFile.setting(), caFile.failures());
    }
  }

  /** For the JDK's {@code HttpsServer}: this TLS with the given client-auth mode. */
  public HttpsConfigurator httpsConfigurator(ClientAuth clientAuth) {
    return new HttpsConfigurator(jdkContext) {
      @Override
      public void configure(HttpsParameters params) {
        SSLParameters p = jdkContext.getDefaultSSLParameters();
        // One call: each of the two setters clears the other's flag.
        if (clientAuth == ClientAuth.NEED) {
          p.setNeedClientAuth(true);
        } else {
          p.setWantClientAuth(clientAuth == ClientAuth.WANT);
        }
        params.setSSLParameters(p);
      }
    };
  }

  /**
   * For gRPC's Netty server: this TLS with the given client-auth mode, on the JDK's provider (so
   * that the reloading managers are asked at every handshake), HTTP/2 by ALPN.
   */
  public SslContext grpcContext(ClientAuth clientAuth) throws SSLException {
    SslContextBuilder builder =
        GrpcSslContexts.configure(SslContextBuilder.forServer(keys), SslProvider.JDK);
    if (clientCas != null) {
      builder.trustManager(clientCas);
    }
    builder.clientAuth(
        switch (clientAuth) {
          case NONE -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.NONE;
          case WANT -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.OPTIONAL;
          case NEED -> io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.REQUIRE;
        });
    return builder.build();
  }

  private static X509ExtendedKeyManager keyManager(byte[] certPem, byte[] keyPem)
      throws GeneralSecurityException, java.io.IOException {
    List<X509Certificate> chain = PemFiles.certificates(certPem);
    PrivateKey key;
    try {
      key = PemFiles.privateKey(keyPem, chain.get(0).getPublicKey());
    } catch (GeneralSecurityException e) {
      throw new GeneralSecurityException("tls.key-file: " + e.getMessage(), e);
    }
    if (!PemFiles.matches(key, chain.get(0))) {
      throw new GeneralSecurityException(
          "tls.key-file does not hold the key of the first certificate in tls.cert-file ("
              + chain.get(0).getSubjectX500Principal()
              + ")");
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(ALIAS, key, NO_PASSWORD, chain.toArray(new X509Certificate[0]));
    KeyManagerFactory factory = KeyManagerFactory.getInstance("SunX509");
    factory.init(store, NO_PASSWORD);
    return (X509ExtendedKeyManager) factory.getKeyManagers()[0];
  }

  private static X509ExtendedTrustManager trustManager(byte[] caPem)
      throws GeneralSecurityException, java.io.IOException {
    List<X509Certificate> cas = new ArrayList<>(PemFiles.certificates(caPem));
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (int i = 0; i < cas.size(); i++) {
      store.setCertificateEntry("ca-" + i, cas.get(i));
    }
    TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
    factory.init(store);
    for (TrustManager m : factory.getTrustManagers()) {
      if (m instanceof X509ExtendedTrustManager x) {
        return x;
      }
    }
    throw new GeneralSecurityException("no X.509 trust manager");
  }
}
