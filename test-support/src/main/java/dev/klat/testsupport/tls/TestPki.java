package dev.klat.testsupport.tls;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for tests: a CA made when the test starts, and server and
 * client certificates it signs, written as PEM (certificate, PKCS#8 key, and the OpenSSL
 * "traditional" PKCS#1/SEC1 key) and as PKCS#12 key and trust stores, the forms klat's settings and
 * Kafka's {@code ssl.*} settings take. Nothing here is checked in: every key is generated in the
 * test's own directory and dies with it.
 *
 * <pre>{@code
 * TestPki pki = TestPki.create(dir.resolve("pki"), "klat test CA");
 * TestPki.Issued server = pki.leaf("localhost").server().issue();
 * TestPki.Issued client = pki.leaf("klat-collector").client().ec().issue();
 * TestPki.Issued expired = pki.leaf("localhost").server().expired().issue();
 * }</pre>
 */
public final class TestPki {
  /** The password of every key store and trust store this class writes. */
  public static final String STORE_PASSWORD = "klat-test-only";

  private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path dir;
  private final KeyPair caKeys;
  private final X509Certificate caCertificate;
  private final Path caPem;

  private TestPki(Path dir, KeyPair caKeys, X509Certificate caCertificate) throws IOException {
    this.dir = dir;
    this.caKeys = caKeys;
    this.caCertificate = caCertificate;
    this.caPem = dir.resolve("ca.pem");
    Files.writeString(caPem, pem(caCertificate));
  }

  /** A new CA (RSA 2048, valid from an hour ago for a day) whose files go into {@code dir}. */
  public static TestPki create(Path dir, String caName) {
    try {
      Files.createDirectories(dir);
      KeyPair keys = keyPair(KeyType.RSA);
      X500Name name = new X500Name("CN=" + caName + ",O=klat tests");
      Instant now = Instant.now();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              name,
              BigInteger.valueOf(SERIALS.incrementAndGet()),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(now.plus(Duration.ofDays(1))),
              name,
              keys.getPublic());
      JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      builder.addExtension(
          Extension.subjectKeyIdentifier,
          false,
          utils.createSubjectKeyIdentifier(keys.getPublic()));
      X509Certificate certificate = sign(builder, keys.getPrivate(), KeyType.RSA);
      return new TestPki(dir, keys, certificate);
    } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create the test CA in " + dir, e);
    }
  }

  /** The CA's certificate, PEM. */
  public Path caPem() {
    return caPem;
  }

  /** The CA's certificate. */
  public X509Certificate caCertificate() {
    return caCertificate;
  }

  /** A PKCS#12 trust store holding the CA's certificate, password {@link #STORE_PASSWORD}. */
  public Path trustStore() {
    Path path = dir.resolve("ca-truststore.p12");
    try {
      if (!Files.exists(path)) {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", caCertificate);
        try (OutputStream out = Files.newOutputStream(path)) {
          store.store(out, STORE_PASSWORD.toCharArray());
        }
      }
      return path;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot write " + path, e);
    }
  }

  /** Starts a certificate for {@code commonName}; {@link Leaf#issue()} signs it. */
  public Leaf leaf(String commonName) {
    return new Leaf(commonName);
  }

  /** The key algorithms a leaf can have. */
  public enum KeyType {
    RSA,
    EC
  }

  /** A certificate being described: purpose, key type, validity, names. */
  public final class Leaf {
    private final String commonName;
    private final List<String> dnsNames = new ArrayList<>(List.of("localhost"));
    private boolean server = true;
    private boolean client;
    private KeyType keyType = KeyType.RSA;
    private boolean expired;
    private String fileName;

    private Leaf(String commonName) {
      this.commonName = commonName;
      this.fileName = commonName.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** For a server (the default): serverAuth, names localhost and 127.0.0.1. */
    public Leaf server() {
      server = true;
      return this;
    }

    /** For a client: clientAuth only. */
    public Leaf client() {
      server = false;
      client = true;
      return this;
    }

    /** For both ends (a Kafka broker is a server and, to other brokers, a client). */
    public Leaf serverAndClient() {
      server = true;
      client = true;
      return this;
    }

    /** An EC (P-256) key instead of RSA 2048. */
    public Leaf ec() {
      keyType = KeyType.EC;
      return this;
    }

    /** Valid only in the past (two days ago to one day ago). */
    public Leaf expired() {
      expired = true;
      return this;
    }

    /** Another DNS name in the subject alternative names. */
    public Leaf dnsName(String name) {
      dnsNames.add(name);
      return this;
    }

    /** The files' base name (the common name by default). */
    public Leaf fileName(String name) {
      fileName = name;
      return this;
    }

    /** Signs the certificate with the CA and writes its files. */
    public Issued issue() {
      try {
        KeyPair keys = keyPair(keyType);
        Instant now = Instant.now();
        Instant notBefore =
            expired ? now.minus(Duration.ofDays(2)) : now.minus(Duration.ofHours(1));
        Instant notAfter = expired ? now.minus(Duration.ofDays(1)) : now.plus(Duration.ofDays(1));
        X509v3CertificateBuilder builder =
            new JcaX509v3CertificateBuilder(
                caCertificate,
                BigInteger.valueOf(SERIALS.incrementAndGet()),
                Date.from(notBefore),
                Date.from(notAfter),
                new X500Name("CN=" + commonName + ",O=klat tests"),
                keys.getPublic());
        JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        builder.addExtension(
            Extension.keyUsage,
            true,
            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        List<KeyPurposeId> purposes = new ArrayList<>();
        if (server) {
          purposes.add(KeyPurposeId.id_kp_serverAuth);
        }
        if (client) {
          purposes.add(KeyPurposeId.id_kp_clientAuth);
        }
        builder.addExtension(
            Extension.extendedKeyUsage,
            false,
            new ExtendedKeyUsage(purposes.toArray(new KeyPurposeId[0])));
        List<GeneralName> names = new ArrayList<>();
        for (String dns : dnsNames) {
          names.add(new GeneralName(GeneralName.dNSName, dns));
        }
        names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(names.toArray(new GeneralName[0])));
        builder.addExtension(
            Extension.authorityKeyIdentifier,
            false,
            utils.createAuthorityKeyIdentifier(caCertificate));
        builder.addExtension(
            Extension.subjectKeyIdentifier,
            false,
            utils.createSubjectKeyIdentifier(keys.getPublic()));
        X509Certificate certificate = sign(builder, caKeys.getPrivate(), KeyType.RSA);
        return write(certificate, keys.getPrivate());
      } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
        throw new IllegalStateException("cannot issue a test certificate for " + commonName, e);
      }
    }

    private Issued write(X509Certificate certificate, PrivateKey key)
        throws IOException, GeneralSecurityException {
      Path certificatePem = dir.resolve(fileName + ".pem");
      Path chainPem = dir.resolve(fileName + "-chain.pem");
      Path keyPem = dir.resolve(fileName + ".key");
      Path traditionalKeyPem = dir.resolve(fileName + "-traditional.key");
      Path keyStore = dir.resolve(fileName + ".p12");
      Files.writeString(certificatePem, pem(certificate));
      Files.writeString(chainPem, pem(certificate) + pem(caCertificate));
      Files.writeString(keyPem, pkcs8Pem(key));
      Files.writeString(traditionalKeyPem, pem(key));
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(
          fileName,
          key,
          STORE_PASSWORD.toCharArray(),
          new java.security.cert.Certificate[] {certificate, caCertificate});
      try (OutputStream out = Files.newOutputStream(keyStore)) {
        store.store(out, STORE_PASSWORD.toCharArray());
      }
      return new Issued(
          certificate, key, certificatePem, chainPem, keyPem, traditionalKeyPem, keyStore);
    }
  }

  /**
   * A signed certificate and its files: the certificate alone and with the CA after it (PEM), the
   * key as PKCS#8 ({@code BEGIN PRIVATE KEY}) and as OpenSSL's traditional form ({@code BEGIN RSA
   * PRIVATE KEY} or {@code BEGIN EC PRIVATE KEY}), and a PKCS#12 key store (password {@link
   * #STORE_PASSWORD}) holding key and chain.
   */
  public record Issued(
      X509Certificate certificate,
      PrivateKey privateKey,
      Path certificatePem,
      Path chainPem,
      Path keyPem,
      Path traditionalKeyPem,
      Path keyStore) {}

  private static KeyPair keyPair(KeyType type) throws GeneralSecurityException {
    KeyPairGenerator generator;
    if (type == KeyType.EC) {
      generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    } else {
      generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048, RANDOM);
    }
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(
      X509v3CertificateBuilder builder, PrivateKey signingKey, KeyType signingKeyType)
      throws OperatorCreationException, GeneralSecurityException {
    String algorithm = signingKeyType == KeyType.EC ? "SHA256withECDSA" : "SHA256withRSA";
    return new JcaX509CertificateConverter()
        .getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(signingKey)));
  }

  private static String pem(Object object) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(object);
    }
    return text.toString();
  }

  private static String pkcs8Pem(PrivateKey key) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(key.getEncoded());
    return "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n";
  }
}
