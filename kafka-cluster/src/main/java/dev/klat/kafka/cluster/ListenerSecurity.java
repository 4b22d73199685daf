package dev.klat.kafka.cluster;

/** How a client listener ({@link Listener#CLIENT}, {@link Listener#SECOND_CLIENT}) is secured. */
public enum ListenerSecurity {
  /** No TLS, no authentication: every client is {@code User:ANONYMOUS}. */
  PLAINTEXT,
  /**
   * TLS, and SASL/SCRAM-SHA-512 with the users of {@link KafkaClusterSpec.Builder#scramUser}: a
   * client is {@code User:<name>}.
   */
  SASL_SSL_SCRAM,
  /**
   * TLS with client certificates required ({@code ssl.client.auth=required}): a client is {@code
   * User:<common name of its certificate>}.
   */
  MTLS
}
