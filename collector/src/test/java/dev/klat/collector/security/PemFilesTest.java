package dev.klat.collector.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.testsupport.tls.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PemFilesTest {
  @TempDir static Path dir;

  @Test
  void readsPkcs8AndTraditionalRsaAndEcKeysThatMatchTheirCertificates() throws Exception {
    TestPki pki = TestPki.create(dir.resolve("pem"), "pem-ca");
    TestPki.Issued rsa = pki.leaf("rsa").issue();
    TestPki.Issued ec = pki.leaf("ec").ec().issue();
    for (TestPki.Issued issued : List.of(rsa, ec)) {
      X509Certificate cert =
          PemFiles.certificates(Files.readAllBytes(issued.certificatePem())).get(0);
      for (Path key : List.of(issued.keyPem(), issued.traditionalKeyPem())) {
        PrivateKey read = PemFiles.privateKey(Files.readAllBytes(key), cert.getPublicKey());
        assertThat(read.getEncoded())
            .as(key.toString())
            .isEqualTo(issued.privateKey().getEncoded());
        assertThat(PemFiles.matches(read, cert)).isTrue();
      }
    }
    X509Certificate rsaCert =
        PemFiles.certificates(Files.readAllBytes(rsa.certificatePem())).get(0);
    assertThat(PemFiles.matches(PemFiles.privateKey(Files.readAllBytes(ec.keyPem())), rsaCert))
        .isFalse();
    assertThat(PemFiles.certificates(Files.readAllBytes(rsa.chainPem()))).hasSize(2);
  }

  @Test
  void saysWhatIsWrongWithAFileThatHoldsNoUsableKey() throws Exception {
    assertThatThrownBy(() -> PemFiles.privateKey("hello".getBytes()))
        .isInstanceOf(GeneralSecurityException.class)
        .hasMessageContaining("no -----BEGIN PRIVATE KEY-----");
    String encrypted =
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n";
    assertThatThrownBy(() -> PemFiles.privateKey(encrypted.getBytes()))
        .hasMessageContaining("encrypted")
        .hasMessageContaining("openssl pkey");
    assertThatThrownBy(() -> PemFiles.certificates("nothing".getBytes()))
        .hasMessageContaining("no -----BEGIN CERTIFICATE----- block");
  }
}
