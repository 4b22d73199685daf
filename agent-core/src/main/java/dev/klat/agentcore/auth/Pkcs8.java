package dev.klat.agentcore.auth;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * The little DER that reading OpenSSL's key files takes: which algorithm a PKCS#8 key is for, and a
 * PKCS#1 (RSA) or SEC1 (EC) key wrapped into the PKCS#8 {@code PrivateKeyInfo} that the JDK's key
 * factories read (RFC 5208, RFC 5915 section 2). Written here because the JDK has no public DER API
 * and the agents ship no crypto library. Exceptions never carry key bytes.
 */
final class Pkcs8 {

  private static final int SEQUENCE = 0x30;
  private static final int INTEGER = 0x02;
  private static final int OCTET_STRING = 0x04;
  private static final int NULL = 0x05;
  private static final int OID = 0x06;
  private static final int CONTEXT_0 = 0xA0;

  // The content octets of the algorithm identifiers' object identifiers.
  private static final byte[] RSA_ENCRYPTION = oid(0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 1, 1, 1);
  private static final byte[] RSASSA_PSS = oid(0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 1, 1, 10);
  private static final byte[] EC_PUBLIC_KEY = oid(0x2A, 0x86, 0x48, 0xCE, 0x3D, 2, 1);
  private static final byte[] ED25519 = oid(0x2B, 0x65, 0x70);
  private static final byte[] ED448 = oid(0x2B, 0x65, 0x71);

  /** A key that is not the DER it claims to be. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  private Pkcs8() {}

  /**
   * The JDK key factory name for a PKCS#8 {@code PrivateKeyInfo}: {@code RSA}, {@code EC}, {@code
   * RSASSA-PSS} or {@code EdDSA}; null for another algorithm.
   */
  static String algorithmOf(byte[] privateKeyInfo) throws Malformed {
    Reader outer = new Reader(privateKeyInfo, 0, privateKeyInfo.length);
    Reader info = outer.enter(SEQUENCE);
    outer.expectEnd();
    info.skip(INTEGER);
    Reader algorithm = info.enter(SEQUENCE);
    byte[] oid = algorithm.content(OID);
    if (Arrays.equals(oid, RSA_ENCRYPTION)) {
      return "RSA";
    }
    if (Arrays.equals(oid, EC_PUBLIC_KEY)) {
      return "EC";
    }
    if (Arrays.equals(oid, RSASSA_PSS)) {
      return "RSASSA-PSS";
    }
    if (Arrays.equals(oid, ED25519) || Arrays.equals(oid, ED448)) {
      return "EdDSA";
    }
    return null;
  }

  /** A PKCS#1 {@code RSAPrivateKey} as a PKCS#8 {@code PrivateKeyInfo}. */
  static byte[] fromPkcs1(byte[] rsaPrivateKey) throws Malformed {
    Reader outer = new Reader(rsaPrivateKey, 0, rsaPrivateKey.length);
    outer.enter(SEQUENCE);
    outer.expectEnd();
    byte[] algorithm = tlv(SEQUENCE, concat(tlv(OID, RSA_ENCRYPTION), tlv(NULL, new byte[0])));
    return privateKeyInfo(algorithm, rsaPrivateKey);
  }

  /**
   * A SEC1 {@code ECPrivateKey} as a PKCS#8 {@code PrivateKeyInfo}, with the named curve of its
   * parameters. OpenSSL writes them; other tools may leave them out (the curve is the public
   * key's), and then {@code publicKeyInfo}, the X.509 {@code SubjectPublicKeyInfo} of the
   * certificate the key goes with, names the curve; without it such a key cannot be wrapped.
   */
  static byte[] fromSec1(byte[] ecPrivateKey, byte[] publicKeyInfo) throws Malformed {
    Reader outer = new Reader(ecPrivateKey, 0, ecPrivateKey.length);
    Reader key = outer.enter(SEQUENCE);
    outer.expectEnd();
    key.skip(INTEGER);
    key.skip(OCTET_STRING);
    byte[] curve = null;
    while (!key.atEnd()) {
      if (key.peekTag() == CONTEXT_0) {
        Reader parameters = key.enter(CONTEXT_0);
        if (parameters.atEnd() || parameters.peekTag() != OID) {
          throw new Malformed("its curve is given as explicit parameters, not a named curve");
        }
        curve = parameters.content(OID);
      } else {
        key.skipAny();
      }
    }
    byte[] algorithm;
    if (curve != null) {
      algorithm = tlv(SEQUENCE, concat(tlv(OID, EC_PUBLIC_KEY), tlv(OID, curve)));
    } else if (publicKeyInfo != null) {
      algorithm = algorithmIdentifier(publicKeyInfo);
    } else {
      throw new Malformed("it does not name its curve");
    }
    return privateKeyInfo(algorithm, ecPrivateKey);
  }

  /** The {@code AlgorithmIdentifier} element, whole, of an X.509 {@code SubjectPublicKeyInfo}. */
  private static byte[] algorithmIdentifier(byte[] publicKeyInfo) throws Malformed {
    Reader outer = new Reader(publicKeyInfo, 0, publicKeyInfo.length);
    Reader info = outer.enter(SEQUENCE);
    int start = info.position;
    Reader algorithm = info.enter(SEQUENCE);
    if (!Arrays.equals(algorithm.content(OID), EC_PUBLIC_KEY)) {
      throw new Malformed("it is an EC key, but its certificate's is not");
    }
    return Arrays.copyOfRange(publicKeyInfo, start, info.position);
  }

  private static byte[] privateKeyInfo(byte[] algorithm, byte[] privateKey) {
    byte[] version = tlv(INTEGER, new byte[] {0});
    return tlv(SEQUENCE, concat(version, algorithm, tlv(OCTET_STRING, privateKey)));
  }

  static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = length > 0xFFFFFF ? 4 : length > 0xFFFF ? 3 : length > 0xFF ? 2 : 1;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.write(content, 0, content.length);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.write(part, 0, part.length);
    }
    return out.toByteArray();
  }

  private static byte[] oid(int... octets) {
    byte[] bytes = new byte[octets.length];
    for (int i = 0; i < octets.length; i++) {
      bytes[i] = (byte) octets[i];
    }
    return bytes;
  }

  /** Reads DER elements from {@code bytes[position, end)}. */
  private static final class Reader {
    private final byte[] bytes;
    private int position;
    private final int end;

    Reader(byte[] bytes, int position, int end) {
      this.bytes = bytes;
      this.position = position;
      this.end = end;
    }

    boolean atEnd() {
      return position >= end;
    }

    int peekTag() throws Malformed {
      if (atEnd()) {
        throw new Malformed("it ends early");
      }
      return bytes[position] & 0xFF;
    }

    /** The element with {@code tag}'s content, as a reader; this reader moves past it. */
    Reader enter(int tag) throws Malformed {
      int[] bounds = element(tag);
      return new Reader(bytes, bounds[0], bounds[1]);
    }

    byte[] content(int tag) throws Malformed {
      int[] bounds = element(tag);
      return Arrays.copyOfRange(bytes, bounds[0], bounds[1]);
    }

    void skip(int tag) throws Malformed {
      element(tag);
    }

    void skipAny() throws Malformed {
      element(peekTag());
    }

    void expectEnd() throws Malformed {
      if (!atEnd()) {
        throw new Malformed("bytes follow its end");
      }
    }

    private int[] element(int tag) throws Malformed {
      if (peekTag() != tag) {
        throw new Malformed("not the DER structure expected");
      }
      position++;
      if (atEnd()) {
        throw new Malformed("it ends early");
      }
      int first = bytes[position++] & 0xFF;
      long length;
      if (first < 0x80) {
        length = first;
      } else {
        int count = first & 0x7F;
        if (count == 0 || count > 4) {
          throw new Malformed("a length is not DER");
        }
        length = 0;
        for (int i = 0; i < count; i++) {
          if (atEnd()) {
            throw new Malformed("it ends early");
          }
          length = (length << 8) | (bytes[position++] & 0xFF);
        }
      }
      if (length > end - position) {
        throw new Malformed("it ends early");
      }
      int start = position;
      position += (int) length;
      return new int[] {start, position};
    }
  }
}
