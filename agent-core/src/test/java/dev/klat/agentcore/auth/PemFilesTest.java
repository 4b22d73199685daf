package dev.klat.agentcore.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.model.SettingValueException;
import dev.klat.testsupport.tls.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PemFilesTest {

  @TempDir static Path dir;
  private static TestPki pki;
  private static TestPki.Issued rsa;
  private static TestPki.Issued ec;

  @BeforeAll
  static void issue() {
    pki = TestPki.create(dir.resolve("pki"), "klat test CA");
    rsa = pki.leaf("rsa").client().issue();
    ec = pki.leaf("ec").client().ec().issue();
  }

  @Test
  void readsEveryCertificateOfABundle() throws Exception {
    assertThat(PemFiles.certificates(rsa.chainPem().toString()))
        .containsExactly(rsa.certificate(), pki.caCertificate());
  }

  @Test
  void traditionalKeysAreTheSameKeysAsTheirPkcs8Forms() {
    for (TestPki.Issued issued : new TestPki.Issued[] {rsa, ec}) {
      PrivateKey pkcs8 = PemFiles.privateKey(issued.keyPem().toString(), null);
      PrivateKey traditional =
          PemFiles.privateKey(
              issued.traditionalKeyPem().toString(), issued.certificate().getPublicKey());
      assertThat(traditional.getEncoded()).isEqualTo(pkcs8.getEncoded());
      assertThat(ExportTls.matches(pkcs8, issued.certificate().getPublicKey())).isTrue();
    }
  }

  @Test
  void aSec1KeyWithItsCurveNeedsNoCertificate() {
    // OpenSSL's own SEC1 (openssl ecparam -genkey) names its curve: [0] prime256v1.
    String sec1 =
        "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
            + "-----BEGIN EC PRIVATE KEY-----\n"
            + "MHcCAQEEIIhVIRsd2Omm9ppXS8IvM5Ow5zWoNqBRmzXgjxGr6RR5oAoGCCqGSM49\n"
            + "AwEHoUQDQgAEmJWXkMAVZD1W62ZaTAxmJP2VzRy8LiDo0ZNIgbw4+iQLo8Av/eQO\n"
            + "2MgQ9F4jlKZOWdIwcVuHBf8pkT3OYP3+Pw==\n"
            + "-----END EC PRIVATE KEY-----\n";
    assertThat(PemFiles.privateKey(write("sec1.key", sec1), null).getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void anEncryptedKeyIsRefusedWithWhatToRun() {
    String pkcs8 =
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----\n";
    String traditional =
        "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
            + "DEK-Info: AES-128-CBC,00000000000000000000000000000000\n\nMAA=\n"
            + "-----END RSA PRIVATE KEY-----\n";
    for (String text : new String[] {pkcs8, traditional}) {
      assertThatThrownBy(() -> PemFiles.privateKey(write("enc.key", text), null))
          .isInstanceOf(SettingValueException.class)
          .hasMessageContaining("encrypted")
          .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    }
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefused() {
    assertThatThrownBy(
            () -> ExportTls.load(null, rsa.certificatePem().toString(), ec.keyPem().toString()))
        .isInstanceOf(ExportTls.Invalid.class)
        .hasMessageContaining("klat.export.client.key")
        .hasMessageContaining("does not match");
  }

  @Test
  void aCertificateWithoutItsKeyIsRefused() {
    assertThatThrownBy(() -> ExportTls.load(null, rsa.certificatePem().toString(), null))
        .isInstanceOf(ExportTls.Invalid.class)
        .hasMessageContaining("klat.export.client.key");
  }

  @Test
  void unreadableOrWrongFilesSayWhatIsWrongWithoutTheirContent() throws Exception {
    String key = Files.readString(rsa.keyPem());
    assertThatThrownBy(() -> PemFiles.certificates(dir.resolve("missing.pem").toString()))
        .hasMessageContaining("no such file");
    assertThatThrownBy(() -> PemFiles.certificates(rsa.keyPem().toString()))
        .hasMessageContaining("no -----BEGIN CERTIFICATE----- block")
        .hasMessageNotContaining(key.substring(40, 80));
    assertThatThrownBy(() -> PemFiles.privateKey(write("junk.key", "hello"), null))
        .hasMessageContaining("not a PEM file");
    String broken = key.replace(key.substring(100, 140), "!!!!");
    assertThatThrownBy(() -> PemFiles.privateKey(write("broken.key", broken), null))
        .hasMessageContaining("not valid base64")
        .hasMessageNotContaining(key.substring(40, 80));
  }

  private static String write(String name, String text) {
    try {
      Path path = dir.resolve(name);
      Files.writeString(path, text);
      return path.toString();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
