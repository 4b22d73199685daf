package dev.klat.testsupport.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestPkiTest {
  @TempDir Path dir;

  @Test
  void issuesCertificatesTheCaSignedInEveryFormTheSettingsTake() throws Exception {
    TestPki pki = TestPki.create(dir, "test CA");
    TestPki.Issued server = pki.leaf("localhost").server().issue();
    TestPki.Issued client = pki.leaf("agent").client().ec().issue();

    X509Certificate fromPem;
    try (InputStream in = Files.newInputStream(server.certificatePem())) {
      fromPem = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    fromPem.verify(pki.caCertificate().getPublicKey());
    fromPem.checkValidity();
    assertTrue(fromPem.getExtendedKeyUsage().contains("1.3.6.1.5.5.7.3.1"), "serverAuth");
    assertTrue(client.certificate().getExtendedKeyUsage().contains("1.3.6.1.5.5.7.3.2"));

    String pkcs8 = Files.readString(client.keyPem());
    assertTrue(pkcs8.startsWith("-----BEGIN PRIVATE KEY-----"));
    byte[] der =
        Base64.getMimeDecoder()
            .decode(pkcs8.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
    assertEquals(
        client.privateKey(),
        KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der)));
    assertTrue(Files.readString(server.traditionalKeyPem()).contains("BEGIN RSA PRIVATE KEY"));
    assertTrue(Files.readString(client.traditionalKeyPem()).contains("BEGIN EC PRIVATE KEY"));

    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(server.keyStore())) {
      store.load(in, TestPki.STORE_PASSWORD.toCharArray());
    }
    assertEquals(2, store.getCertificateChain("localhost").length);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(pki.trustStore())) {
      trust.load(in, TestPki.STORE_PASSWORD.toCharArray());
    }
    assertEquals(pki.caCertificate(), trust.getCertificate("ca"));
  }

  @Test
  void anExpiredCertificateIsExpiredAndAnotherCaDoesNotVerifyIt() throws Exception {
    TestPki pki = TestPki.create(dir.resolve("a"), "A");
    TestPki other = TestPki.create(dir.resolve("b"), "B");
    TestPki.Issued expired = pki.leaf("localhost").expired().issue();
    assertThrows(CertificateExpiredException.class, () -> expired.certificate().checkValidity());
    TestPki.Issued valid = pki.leaf("localhost").issue();
    assertThrows(
        java.security.SignatureException.class,
        () -> valid.certificate().verify(other.caCertificate().getPublicKey()));
  }
}
