package dev.klat.collector.broker;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * How the collector authenticates to the brokers' exporters and checks them: HTTP basic ({@code
 * brokers.exporter-username}, {@code brokers.exporter-password-file}) or a bearer token ({@code
 * brokers.exporter-token-file}), and over https the CA of {@code brokers.exporter-certificate}
 * (PEM) instead of the JVM's trust store. The JDK's TLS checks the certificate chain and the host
 * name.
 */
public final class ExporterAuth {
  /** No authentication, the JVM's trust store for https. */
  public static final ExporterAuth NONE = new ExporterAuth(null, null, null, null);

  private final String username;
  private final SecretFile password;
  private final SecretFile token;
  private final SSLSocketFactory tls;

  private ExporterAuth(
      String username, SecretFile password, SecretFile token, SSLSocketFactory tls) {
    this.username = username;
    this.password = password;
    this.token = token;
    this.tls = tls;
  }

  /**
   * @param username for basic authentication, or empty
   * @param password its password, or null
   * @param token a bearer token, or null
   * @param certificate a PEM file of the CA certificates to trust, or empty for the JVM's
   * @throws IllegalArgumentException naming the setting at fault
   */
  public static ExporterAuth of(
      String username, SecretFile password, SecretFile token, String certificate) {
    String user = username.trim();
    if (user.isEmpty() != (password == null)) {
      throw new IllegalArgumentException(
          "brokers.exporter-username and brokers.exporter-password-file go together");
    }
    if (token != null && password != null) {
      throw new IllegalArgumentException(
          "brokers.exporter-token-file and brokers.exporter-username: one or the other");
    }
    if (user.indexOf(':') >= 0) {
      throw new IllegalArgumentException(
          "brokers.exporter-username: HTTP basic authentication allows no ':' in it");
    }
    String ca = certificate.trim();
    SSLSocketFactory tls = ca.isEmpty() ? null : trusting(Path.of(ca));
    return new ExporterAuth(user.isEmpty() ? null : user, password, token, tls);
  }

  /** True when a CA is given: discovered exporters are then read over https. */
  boolean https() {
    return tls != null;
  }

  /** True when requests carry credentials. */
  boolean authenticates() {
    return password != null || token != null;
  }

  /** Sets the connection's authorization header and, over https, its trust. */
  void apply(HttpURLConnection connection) {
    if (tls != null && connection instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls);
    }
    if (token != null) {
      connection.setRequestProperty("Authorization", "Bearer " + token.value());
    } else if (password != null) {
      String pair = username + ":" + password.value();
      connection.setRequestProperty(
          "Authorization",
          "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
  }

  private static SSLSocketFactory trusting(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certificates =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException(
            "brokers.exporter-certificate: no PEM certificate in " + pem);
      }
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : certificates) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context.getSocketFactory();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "brokers.exporter-certificate: cannot read the CA certificates of " + pem + ": " + e, e);
    }
  }

  @Override
  public String toString() {
    return token != null ? "bearer " + token : password != null ? "basic " + username : "none";
  }
}
