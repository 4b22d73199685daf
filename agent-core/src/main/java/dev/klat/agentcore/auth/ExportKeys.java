package dev.klat.agentcore.auth;

/**
 * The names of the export credential settings, the same in both agents (their tables, {@code
 * ConfigKey} and {@code ProbeKey}, declare them with these names), for the messages here.
 */
public final class ExportKeys {
  /** {@value}: extra HTTP headers, {@code k1=v1,k2=v2}. */
  public static final String HEADERS = "klat.export.headers";

  /** {@value}: a PEM file of the CA certificates that the exporter trusts for the endpoint. */
  public static final String CERTIFICATE = "klat.export.certificate";

  /** {@value}: a PEM file of the client certificate, and its chain, for mTLS. */
  public static final String CLIENT_CERTIFICATE = "klat.export.client.certificate";

  /** {@value}: a PEM file of the client certificate's private key, unencrypted. */
  public static final String CLIENT_KEY = "klat.export.client.key";

  /** {@value}: the OTLP/HTTP base URL, whose user info is sent as HTTP basic authentication. */
  public static final String ENDPOINT = "klat.endpoint";

  private ExportKeys() {}
}
