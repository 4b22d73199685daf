package dev.klat.agentcore.auth;

import dev.klat.model.SettingValueException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

/**
 * Reads PEM files with the JDK alone (the agents run on Java 8 and ship no crypto library):
 * certificates ({@code BEGIN CERTIFICATE}, one or more) and one private key, unencrypted, as PKCS#8
 * ({@code BEGIN PRIVATE KEY}: RSA, EC, and what else the JDK's key factories read) or in OpenSSL's
 * traditional forms, PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) and SEC1 ({@code BEGIN EC PRIVATE
 * KEY}), which {@link Pkcs8} wraps into PKCS#8. An encrypted key is refused with what to run.
 *
 * <p>Errors say what is wrong with the file (the caller names the setting and the path), never what
 * it holds; a key's bytes are never part of a message, nor of an exception's cause.
 */
public final class PemFiles {

  /** A PEM file larger than this, {@value} bytes, is refused: a CA bundle is far smaller. */
  static final int MAX_FILE_BYTES = 1 << 20;

  private static final String BEGIN = "-----BEGIN ";
  private static final String END = "-----END ";
  private static final String DASHES = "-----";
  private static final String CONVERT =
      "; convert it with: openssl pkcs8 -topk8 -nocrypt -in <key> -out <key.pk8>";

  private PemFiles() {}

  /** One block of a PEM file: its label ({@code CERTIFICATE}) and its decoded bytes. */
  static final class Block {
    final String label;
    final byte[] der;
    final boolean encryptedHeader;

    Block(String label, byte[] der, boolean encryptedHeader) {
      this.label = label;
      this.der = der;
      this.encryptedHeader = encryptedHeader;
    }
  }

  /**
   * The certificates of a PEM file, in order: at least one.
   *
   * @throws SettingValueException if the file cannot be read or holds no valid certificate
   */
  public static List<X509Certificate> certificates(String path) {
    List<Block> blocks = blocks(path);
    List<X509Certificate> certificates = new ArrayList<>();
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no X.509 certificate factory", e);
    }
    int n = 0;
    for (Block block : blocks) {
      if (!block.label.equals("CERTIFICATE") && !block.label.equals("X509 CERTIFICATE")) {
        continue;
      }
      n++;
      try {
        Certificate certificate = factory.generateCertificate(new ByteArrayInputStream(block.der));
        certificates.add((X509Certificate) certificate);
      } catch (GeneralSecurityException | ClassCastException e) {
        throw problem("certificate " + n + " is not a valid X.509 certificate");
      }
    }
    if (certificates.isEmpty()) {
      throw problem("no -----BEGIN CERTIFICATE----- block in it");
    }
    return Collections.unmodifiableList(certificates);
  }

  /**
   * The one private key of a PEM file.
   *
   * @param certificateKey the public key of the certificate the key goes with, which names the
   *     curve of a SEC1 key that does not; null if unknown
   * @throws SettingValueException if the file cannot be read, holds no key or more than one, or an
   *     encrypted or unsupported one
   */
  public static PrivateKey privateKey(String path, PublicKey certificateKey) {
    List<Block> keys = new ArrayList<>();
    for (Block block : blocks(path)) {
      if (block.label.endsWith("PRIVATE KEY")) {
        keys.add(block);
      }
    }
    if (keys.isEmpty()) {
      throw problem("no -----BEGIN PRIVATE KEY----- block in it");
    }
    if (keys.size() > 1) {
      throw problem(keys.size() + " private keys in it, where one is expected");
    }
    Block key = keys.get(0);
    if (key.label.equals("ENCRYPTED PRIVATE KEY") || key.encryptedHeader) {
      throw problem(
          "the key is encrypted, and klat takes no password: decrypt it into unencrypted PKCS#8"
              + " with: openssl pkcs8 -topk8 -nocrypt -in <key> -out <key.pk8>");
    }
    byte[] pkcs8;
    String algorithm;
    try {
      switch (key.label) {
        case "PRIVATE KEY":
          pkcs8 = key.der;
          algorithm = Pkcs8.algorithmOf(pkcs8);
          break;
        case "RSA PRIVATE KEY":
          pkcs8 = Pkcs8.fromPkcs1(key.der);
          algorithm = "RSA";
          break;
        case "EC PRIVATE KEY":
          pkcs8 =
              Pkcs8.fromSec1(key.der, certificateKey == null ? null : certificateKey.getEncoded());
          algorithm = "EC";
          break;
        default:
          throw problem("a " + key.label + " is not supported" + CONVERT);
      }
    } catch (Pkcs8.Malformed e) {
      throw problem("the " + key.label + " is malformed (" + e.getMessage() + ")");
    }
    if (algorithm == null) {
      throw problem("the key's algorithm is not RSA or EC" + CONVERT);
    }
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException e) {
      // The exception's message may describe the key's encoding; only its type is told.
      throw problem(
          "this JVM cannot read the "
              + algorithm
              + " key ("
              + e.getClass().getSimpleName()
              + ")"
              + CONVERT);
    }
  }

  /** The PEM blocks of a file, with their labels. */
  static List<Block> blocks(String path) {
    String text = read(path);
    List<Block> blocks = new ArrayList<>();
    int at = 0;
    while (true) {
      int begin = text.indexOf(BEGIN, at);
      if (begin < 0) {
        break;
      }
      int labelEnd = text.indexOf(DASHES, begin + BEGIN.length());
      if (labelEnd < 0) {
        throw problem("a -----BEGIN line is not closed by -----");
      }
      String label = text.substring(begin + BEGIN.length(), labelEnd).trim();
      String endLine = END + label + DASHES;
      int end = text.indexOf(endLine, labelEnd);
      if (end < 0) {
        throw problem("no -----END " + label + "----- line");
      }
      String body = text.substring(labelEnd + DASHES.length(), end);
      boolean encrypted = false;
      StringBuilder base64 = new StringBuilder(body.length());
      for (String line : body.split("\r?\n|\r")) {
        String trimmed = line.trim();
        // RFC 1421 headers of OpenSSL's traditional encrypted keys: "Proc-Type: 4,ENCRYPTED".
        if (trimmed.indexOf(':') >= 0) {
          encrypted |= trimmed.startsWith("Proc-Type:") && trimmed.contains("ENCRYPTED");
          continue;
        }
        base64.append(trimmed);
      }
      byte[] der;
      try {
        der = Base64.getDecoder().decode(base64.toString());
      } catch (IllegalArgumentException e) {
        throw problem("the " + label + " block is not valid base64");
      }
      blocks.add(new Block(label, der, encrypted));
      at = end + endLine.length();
    }
    if (blocks.isEmpty()) {
      throw problem("not a PEM file (no -----BEGIN line)");
    }
    return blocks;
  }

  private static String read(String path) {
    Path file;
    try {
      file = Paths.get(path);
    } catch (InvalidPathException e) {
      throw problem("not a valid path");
    }
    try {
      if (!Files.isRegularFile(file)) {
        throw problem("no such file (or not a regular file)");
      }
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw problem("larger than " + MAX_FILE_BYTES + " bytes");
      }
      byte[] bytes;
      try (InputStream in = Files.newInputStream(file)) {
        bytes = readAtMost(in, MAX_FILE_BYTES + 1);
      }
      if (bytes.length > MAX_FILE_BYTES) {
        throw problem("larger than " + MAX_FILE_BYTES + " bytes");
      }
      return new String(bytes, StandardCharsets.US_ASCII);
    } catch (IOException | SecurityException e) {
      throw problem("cannot be read (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static byte[] readAtMost(InputStream in, int limit) throws IOException {
    byte[] buffer = new byte[Math.min(limit, 64 * 1024)];
    int total = 0;
    while (total < limit) {
      if (total == buffer.length) {
        buffer = java.util.Arrays.copyOf(buffer, Math.min(limit, buffer.length * 2));
      }
      int n = in.read(buffer, total, buffer.length - total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return java.util.Arrays.copyOf(buffer, total);
  }

  private static SettingValueException problem(String what) {
    return new SettingValueException("a readable PEM file (" + what + ")");
  }
}
