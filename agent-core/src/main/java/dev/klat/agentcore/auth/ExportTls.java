package dev.klat.agentcore.auth;

import dev.klat.model.SettingValueException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The exporter's own TLS: the CA certificates it trusts for the endpoint ({@code
 * klat.export.certificate}) and the client certificate and key it presents ({@code
 * klat.export.client.certificate}, {@code klat.export.client.key}), read and checked at start-up,
 * made into an {@link SSLContext} of its own on first use (on the exporter's thread, so that
 * neither {@code premain} nor the application pays for the JSSE set-up).
 *
 * <p>Nothing here reads or changes the JVM's TLS: no {@code javax.net.ssl.*} property, no {@code
 * SSLContext.getDefault()}, no {@code HttpsURLConnection.setDefaultSSLSocketFactory}. With CA
 * certificates, only they are trusted (an in-memory key store, the JDK's PKIX trust manager);
 * without them the JDK's default trust applies ({@code javax.net.ssl.trustStore} if the JVM sets
 * it, else the JRE's {@code cacerts}). Host names are verified by the connection, as for any {@code
 * https} URL. Immutable once built; {@link #socketFactory()} is thread-safe.
 */
public final class ExportTls {

  // The in-memory key store's password: it protects nothing, the store never leaves this object.
  private static final char[] STORE_PASSWORD = "klat-in-memory".toCharArray();

  private final List<X509Certificate> trusted;
  private final List<X509Certificate> clientChain;
  private final PrivateKey clientKey;
  private volatile SSLSocketFactory socketFactory;

  private ExportTls(
      List<X509Certificate> trusted, List<X509Certificate> clientChain, PrivateKey clientKey) {
    this.trusted = trusted;
    this.clientChain = clientChain;
    this.clientKey = clientKey;
  }

  /**
   * Reads the files the settings name; null when none is set (the JDK's defaults then apply).
   *
   * @param certificatePath {@code klat.export.certificate}, or null
   * @param clientCertificatePath {@code klat.export.client.certificate}, or null
   * @param clientKeyPath {@code klat.export.client.key}, or null
   * @throws Invalid naming the setting at fault and what is wrong, never a key's content
   */
  public static ExportTls load(
      String certificatePath, String clientCertificatePath, String clientKeyPath) {
    if (certificatePath == null && clientCertificatePath == null && clientKeyPath == null) {
      return null;
    }
    if ((clientCertificatePath == null) != (clientKeyPath == null)) {
      String missing =
          clientKeyPath == null ? ExportKeys.CLIENT_KEY : ExportKeys.CLIENT_CERTIFICATE;
      String given = clientKeyPath == null ? ExportKeys.CLIENT_CERTIFICATE : ExportKeys.CLIENT_KEY;
      throw new Invalid(
          missing,
          null,
          new SettingValueException(
              "set too, since " + given + " is set (a client certificate needs its key)"));
    }
    List<X509Certificate> trusted = null;
    if (certificatePath != null) {
      trusted = read(ExportKeys.CERTIFICATE, certificatePath);
    }
    List<X509Certificate> chain = null;
    PrivateKey key = null;
    if (clientCertificatePath != null) {
      chain = read(ExportKeys.CLIENT_CERTIFICATE, clientCertificatePath);
      try {
        key = PemFiles.privateKey(clientKeyPath, chain.get(0).getPublicKey());
      } catch (SettingValueException e) {
        throw new Invalid(ExportKeys.CLIENT_KEY, clientKeyPath, e);
      }
      if (!matches(key, chain.get(0).getPublicKey())) {
        throw new Invalid(
            ExportKeys.CLIENT_KEY,
            clientKeyPath,
            new SettingValueException(
                "the private key of the first certificate in "
                    + ExportKeys.CLIENT_CERTIFICATE
                    + " (this key does not match it)"));
      }
    }
    return new ExportTls(trusted, chain, key);
  }

  private static List<X509Certificate> read(String setting, String path) {
    try {
      return PemFiles.certificates(path);
    } catch (SettingValueException e) {
      throw new Invalid(setting, path, e);
    }
  }

  /** Whether {@code key} signs what {@code publicKey} verifies: they are one pair. */
  static boolean matches(PrivateKey key, PublicKey publicKey) {
    if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      return false;
    }
    String algorithm;
    switch (key.getAlgorithm()) {
      case "RSA":
        algorithm = "SHA256withRSA";
        break;
      case "EC":
        algorithm = "SHA256withECDSA";
        break;
      default:
        // Another algorithm the JDK reads: the handshake will tell.
        return true;
    }
    try {
      byte[] probe = "klat key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /** Whether the endpoint is checked against {@code klat.export.certificate} alone. */
  public boolean hasTrustedCertificates() {
    return trusted != null;
  }

  /** Whether a client certificate is presented. */
  public boolean hasClientCertificate() {
    return clientKey != null;
  }

  /** The CA certificates given, or an empty list for the JDK's default trust. */
  public List<X509Certificate> trustedCertificates() {
    return trusted == null ? Collections.<X509Certificate>emptyList() : trusted;
  }

  /**
   * The socket factory of this exporter's own {@link SSLContext}, made on the first call and then
   * the same instance (so that the JDK's keep-alive cache, keyed by it, reuses connections).
   *
   * @throws GeneralSecurityException if the JVM cannot make the context (no TLS provider)
   */
  public SSLSocketFactory socketFactory() throws GeneralSecurityException {
    SSLSocketFactory factory = socketFactory;
    if (factory == null) {
      synchronized (this) {
        factory = socketFactory;
        if (factory == null) {
          factory = new HostnameCheckingSocketFactory(newContext().getSocketFactory());
          socketFactory = factory;
        }
      }
    }
    return factory;
  }

  private SSLContext newContext() throws GeneralSecurityException {
    KeyManager[] keyManagers = null;
    if (clientKey != null) {
      KeyStore keys = emptyStore();
      keys.setKeyEntry(
          "klat-client", clientKey, STORE_PASSWORD, clientChain.toArray(new X509Certificate[0]));
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(keys, STORE_PASSWORD);
      keyManagers = factory.getKeyManagers();
    }
    // Null trust managers would be the JDK's default trust, which is what applies without CAs.
    TrustManager[] trustManagers = null;
    if (trusted != null) {
      KeyStore trust = emptyStore();
      for (int i = 0; i < trusted.size(); i++) {
        trust.setCertificateEntry("klat-ca-" + i, trusted.get(i));
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trust);
      trustManagers = factory.getTrustManagers();
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers, trustManagers, null);
    return context;
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    try {
      store.load(null, null);
    } catch (java.io.IOException e) {
      // An empty in-memory store reads nothing.
      throw new GeneralSecurityException("cannot create an in-memory key store", e);
    }
    return store;
  }

  /** A TLS setting whose file is missing, unreadable or wrong: names the setting and the path. */
  public static final class Invalid extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String setting;
    private final String path;
    private final SettingValueException problem;

    Invalid(String setting, String path, SettingValueException problem) {
      super(setting + (path == null ? "" : "=" + path) + ": " + problem.getMessage());
      this.setting = setting;
      this.path = path;
      this.problem = problem;
    }

    /** The setting at fault. */
    public String setting() {
      return setting;
    }

    /** The path it names, or null when it is not set. */
    public String path() {
      return path;
    }

    /** What is wrong, as "expected ..." (the setting and path not included). */
    public SettingValueException problem() {
      return problem;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
