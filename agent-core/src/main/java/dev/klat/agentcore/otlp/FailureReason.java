package dev.klat.agentcore.otlp;

import dev.klat.agentcore.auth.ExportKeys;
import java.io.IOException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Why an export request failed, as the agents count it (the {@code reason} of {@code
 * klat.agent.export.requests.failed}) and explain it. The first two are the everyday failures of a
 * collector that is down or refuses a request; the others are a configuration to fix (a token, a
 * CA, a certificate), each explained once, with what to check, by {@link #advice}.
 */
public enum FailureReason {
  /** No answer (refused, reset, timed out) or HTTP 429, 502, 503, 504: retried. */
  UNAVAILABLE("unavailable"),
  /** Another HTTP status than those below: the request is dropped. */
  REJECTED("rejected"),
  /** HTTP 401: the collector wants other credentials; dropped (OTLP: not retryable). */
  UNAUTHORIZED("unauthorized"),
  /** HTTP 403: the credentials do not allow this; dropped. */
  FORBIDDEN("forbidden"),
  /** The server's certificate does not chain to a trusted CA. */
  TLS_UNTRUSTED("tls_untrusted"),
  /** The server's certificate (or one of its chain) has expired or is not valid yet. */
  TLS_EXPIRED("tls_expired"),
  /** The server's certificate does not name the endpoint's host. */
  TLS_HOSTNAME("tls_hostname"),
  /** The server refused the client certificate, or wanted one and got none. */
  TLS_CLIENT_CERTIFICATE("tls_client_certificate"),
  /** The endpoint does not answer TLS (an {@code https} URL to a plain HTTP port). */
  TLS_NOT_TLS("tls_not_tls"),
  /** Another TLS failure: protocol or cipher mismatch, a broken handshake. */
  TLS_HANDSHAKE("tls_handshake"),
  /** The exporter's own TLS context could not be made from the files it read. */
  TLS_SETUP("tls_setup");

  /** The value of the {@code reason} tag. */
  public final String id;

  FailureReason(String id) {
    this.id = id;
  }

  /**
   * Whether this reason is a configuration to fix, explained once by {@link #advice} rather than
   * warned about again and again.
   */
  public boolean explained() {
    return this != UNAVAILABLE && this != REJECTED;
  }

  /** The reason of an HTTP status that is not a success. */
  static FailureReason ofStatus(int status) {
    if (status == 401) {
      return UNAUTHORIZED;
    }
    if (status == 403) {
      return FORBIDDEN;
    }
    if (status == 429 || status == 502 || status == 503 || status == 504) {
      return UNAVAILABLE;
    }
    return REJECTED;
  }

  /**
   * The reason of an I/O failure: one of the TLS reasons when the JDK's TLS stack says so (its
   * exception types, and the messages it has used for years where no type tells), else {@link
   * #UNAVAILABLE}.
   */
  static FailureReason ofException(IOException failure) {
    boolean tls = false;
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 12; depth++, t = t.getCause()) {
      String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      if (t instanceof CertificateExpiredException
          || t instanceof CertificateNotYetValidException) {
        return TLS_EXPIRED;
      }
      if (t instanceof CertPathValidatorException) {
        CertPathValidatorException.Reason reason = ((CertPathValidatorException) t).getReason();
        if (reason == CertPathValidatorException.BasicReason.EXPIRED
            || reason == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
          return TLS_EXPIRED;
        }
      }
      if (message.startsWith("no subject alternative")
          || message.startsWith("no name matching")
          || message.startsWith("https hostname wrong")
          || t instanceof SSLPeerUnverifiedException) {
        return TLS_HOSTNAME;
      }
      if (message.contains("received fatal alert")
          && (message.contains("bad_certificate")
              || message.contains("certificate_required")
              || message.contains("unknown_ca")
              || message.contains("certificate_unknown")
              || message.contains("certificate_revoked")
              || message.contains("certificate_expired")
              || message.contains("unsupported_certificate"))) {
        return TLS_CLIENT_CERTIFICATE;
      }
      if (message.contains("unsupported or unrecognized ssl message")
          || message.contains("plaintext connection")) {
        return TLS_NOT_TLS;
      }
      tls |= t instanceof SSLException;
      if (tls
          && (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException)) {
        return TLS_UNTRUSTED;
      }
      if (message.contains("unable to find valid certification path")) {
        return TLS_UNTRUSTED;
      }
    }
    return tls ? TLS_HANDSHAKE : UNAVAILABLE;
  }

  /**
   * What to check, in one line for the log, for an {@link #explained()} reason.
   *
   * @param endpoint the endpoint's base URL, without user info
   * @param hostPort the endpoint's {@code host:port}
   * @param detail the failure as the sender describes it, credentials removed
   */
  public String advice(String endpoint, String hostPort, String detail) {
    String tls = "TLS handshake with " + hostPort + " failed: ";
    switch (this) {
      case UNAUTHORIZED:
        return "the collector at "
            + endpoint
            + " refused the credentials (HTTP 401): check "
            + ExportKeys.HEADERS
            + " (or the user info of "
            + ExportKeys.ENDPOINT
            + "); refused requests are dropped, not retried, as OTLP specifies";
      case FORBIDDEN:
        return "the collector at "
            + endpoint
            + " refused the request (HTTP 403): the credentials of "
            + ExportKeys.HEADERS
            + " are not allowed to send here; refused requests are dropped, not retried";
      case TLS_UNTRUSTED:
        return tls
            + "the server certificate is not trusted: check "
            + ExportKeys.CERTIFICATE
            + " (the CA that signed the collector's certificate) ("
            + detail
            + ")";
      case TLS_EXPIRED:
        return tls
            + "the server certificate has expired or is not valid yet: renew the collector's"
            + " certificate, or check this host's clock ("
            + detail
            + ")";
      case TLS_HOSTNAME:
        return tls
            + "the server certificate does not name the host of "
            + ExportKeys.ENDPOINT
            + ": use a name its subject alternative names list, or reissue it ("
            + detail
            + ")";
      case TLS_CLIENT_CERTIFICATE:
        return tls
            + "the server refused the client certificate, or wanted one: check "
            + ExportKeys.CLIENT_CERTIFICATE
            + " and "
            + ExportKeys.CLIENT_KEY
            + " (issued by a CA the collector trusts, for client authentication) ("
            + detail
            + ")";
      case TLS_NOT_TLS:
        return tls
            + "the endpoint does not speak TLS: check the scheme (http or https) and port of "
            + ExportKeys.ENDPOINT;
      case TLS_HANDSHAKE:
        return tls
            + detail
            + ": check that the collector listens with TLS there, and "
            + ExportKeys.CERTIFICATE;
      case TLS_SETUP:
        return "the exporter's TLS context could not be made from "
            + ExportKeys.CERTIFICATE
            + ", "
            + ExportKeys.CLIENT_CERTIFICATE
            + " and "
            + ExportKeys.CLIENT_KEY
            + " ("
            + detail
            + "); nothing is sent";
      default:
        return "sending to " + endpoint + " failed: " + detail;
    }
  }
}
