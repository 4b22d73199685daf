package dev.klat.collector.security;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and private keys from PEM text, with the JDK alone: keys as PKCS#8 ({@code BEGIN
 * PRIVATE KEY}) or in OpenSSL's traditional forms ({@code BEGIN RSA PRIVATE KEY}, {@code BEGIN EC
 * PRIVATE KEY}), which are wrapped into PKCS#8 (a few bytes of DER) since the JDK reads only that.
 * Encrypted keys are refused with a message saying how to decrypt them.
 */
final class PemFiles {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)\\s*-----END \\1-----");
  // AlgorithmIdentifier of rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters.
  private static final byte[] RSA_ALGORITHM = {
    0x30,
    0x0d,
    0x06,
    0x09,
    0x2a,
    (byte) 0x86,
    0x48,
    (byte) 0x86,
    (byte) 0xf7,
    0x0d,
    0x01,
    0x01,
    0x01,
    0x05,
    0x00
  };
  // OID id-ecPublicKey (1.2.840.10045.2.1).
  private static final byte[] EC_PUBLIC_KEY_OID = {
    0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01
  };
  private static final byte[] VERSION_0 = {0x02, 0x01, 0x00};

  private PemFiles() {}

  /**
   * Every {@code CERTIFICATE} block of {@code pem}, in order (a leaf and its chain).
   *
   * @throws GeneralSecurityException when there is none, or one does not parse
   */
  static List<X509Certificate> certificates(byte[] pem) throws GeneralSecurityException {
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    List<X509Certificate> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    while (m.find()) {
      if (m.group(1).equals("CERTIFICATE")) {
        out.add(
            (X509Certificate)
                factory.generateCertificate(new ByteArrayInputStream(decode(m.group(2)))));
      }
    }
    if (out.isEmpty()) {
      throw new CertificateException("no -----BEGIN CERTIFICATE----- block");
    }
    return out;
  }

  /**
   * The first private key of {@code pem}.
   *
   * @throws GeneralSecurityException when there is none, it is encrypted, or it does not parse
   */
  static PrivateKey privateKey(byte[] pem) throws GeneralSecurityException {
    return privateKey(pem, null);
  }

  /**
   * As {@link #privateKey(byte[])}; an {@code EC PRIVATE KEY} that does not name its curve (some
   * tools leave it out) takes the curve of {@code certificateKey}, the public key it pairs with.
   */
  static PrivateKey privateKey(byte[] pem, java.security.PublicKey certificateKey)
      throws GeneralSecurityException {
    Matcher m = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    while (m.find()) {
      String type = m.group(1);
      byte[] der = decode(m.group(2));
      switch (type) {
        case "PRIVATE KEY":
          return pkcs8(der);
        case "RSA PRIVATE KEY":
          return pkcs8(sequence(VERSION_0, RSA_ALGORITHM, tlv(0x04, der)));
        case "EC PRIVATE KEY":
          byte[] curve = ecCurve(der);
          byte[] algorithm;
          if (curve != null) {
            algorithm = sequence(EC_PUBLIC_KEY_OID, curve);
          } else if (certificateKey != null && certificateKey.getAlgorithm().equals("EC")) {
            algorithm = firstElement(certificateKey.getEncoded());
          } else {
            throw new GeneralSecurityException(
                "the EC key does not name its curve: write it as PKCS#8"
                    + " (`openssl pkcs8 -topk8 -nocrypt`)");
          }
          return pkcs8(sequence(VERSION_0, algorithm, tlv(0x04, der)));
        case "ENCRYPTED PRIVATE KEY":
          throw new GeneralSecurityException(
              "the key is encrypted: write it unencrypted, for example with"
                  + " `openssl pkey -in key.pem -out key-plain.pem`, and protect the file instead");
        default:
          // another block (a certificate in the same file): look further
      }
    }
    throw new GeneralSecurityException(
        "no -----BEGIN PRIVATE KEY----- (PKCS#8), RSA PRIVATE KEY or EC PRIVATE KEY block");
  }

  /**
   * Whether {@code key} is the private half of {@code certificate}'s public key: a signature by one
   * verified by the other, so that a key file half-way through its rotation is not paired with the
   * new certificate.
   */
  static boolean matches(PrivateKey key, X509Certificate certificate) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "Ed25519", "Ed448", "EdDSA" -> "EdDSA";
          default -> null;
        };
    if (algorithm == null) {
      return true; // nothing to check it with; the handshake will tell
    }
    try {
      byte[] probe = "klat key check".getBytes(StandardCharsets.US_ASCII);
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(key);
      sign.update(probe);
      byte[] signature = sign.sign();
      Signature verify = Signature.getInstance(algorithm);
      verify.initVerify(certificate.getPublicKey());
      verify.update(probe);
      return verify.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    GeneralSecurityException last = null;
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new GeneralSecurityException("not an RSA, EC or EdDSA key: " + last.getMessage(), last);
  }

  private static byte[] decode(String base64) throws CertificateException {
    try {
      return Base64.getMimeDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new CertificateException("bad base64 in a PEM block", e);
    }
  }

  /**
   * The curve (its OID, tag and length included) of an OpenSSL EC key, or null when it names none:
   * {@code ECPrivateKey ::= SEQUENCE { version, privateKey OCTET STRING, [0] parameters OID, ... }}
   * (RFC 5915).
   */
  private static byte[] ecCurve(byte[] sec1) throws GeneralSecurityException {
    int[] pos = {0};
    expect(sec1, pos, 0x30);
    readLength(sec1, pos);
    skip(sec1, pos, 0x02);
    skip(sec1, pos, 0x04);
    if (pos[0] < sec1.length && (sec1[pos[0]] & 0xff) == 0xa0) {
      pos[0]++;
      readLength(sec1, pos);
      int start = pos[0];
      skip(sec1, pos, 0x06);
      byte[] oid = new byte[pos[0] - start];
      System.arraycopy(sec1, start, oid, 0, oid.length);
      return oid;
    }
    return null;
  }

  /** The first element (tag, length and value) inside a DER SEQUENCE. */
  private static byte[] firstElement(byte[] sequence) throws GeneralSecurityException {
    int[] pos = {0};
    expect(sequence, pos, 0x30);
    readLength(sequence, pos);
    int start = pos[0];
    pos[0]++;
    int length = readLength(sequence, pos);
    pos[0] += length;
    return java.util.Arrays.copyOfRange(sequence, start, pos[0]);
  }

  private static void expect(byte[] der, int[] pos, int tag) throws GeneralSecurityException {
    if (pos[0] >= der.length || (der[pos[0]] & 0xff) != tag) {
      throw new GeneralSecurityException("not an EC PRIVATE KEY (RFC 5915)");
    }
    pos[0]++;
  }

  private static void skip(byte[] der, int[] pos, int tag) throws GeneralSecurityException {
    expect(der, pos, tag);
    int length = readLength(der, pos); // before the addition: it moves pos past the length bytes
    pos[0] += length;
  }

  private static int readLength(byte[] der, int[] pos) throws GeneralSecurityException {
    if (pos[0] >= der.length) {
      throw new GeneralSecurityException("truncated EC PRIVATE KEY");
    }
    int first = der[pos[0]++] & 0xff;
    if (first < 0x80) {
      return first;
    }
    int bytes = first & 0x7f;
    if (bytes > 3 || pos[0] + bytes > der.length) {
      throw new GeneralSecurityException("bad length in EC PRIVATE KEY");
    }
    int length = 0;
    for (int i = 0; i < bytes; i++) {
      length = (length << 8) | (der[pos[0]++] & 0xff);
    }
    return length;
  }

  private static byte[] sequence(byte[]... parts) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      body.writeBytes(part);
    }
    return tlv(0x30, body.toByteArray());
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 6);
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else if (n < 0x100) {
      out.write(0x81);
      out.write(n);
    } else if (n < 0x10000) {
      out.write(0x82);
      out.write(n >> 8);
      out.write(n);
    } else {
      out.write(0x83);
      out.write(n >> 16);
      out.write(n >> 8);
      out.write(n);
    }
    out.writeBytes(value);
    return out.toByteArray();
  }
}
