package dev.klat.kafka.cluster;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The TLS material of a secured cluster, made by the test (for example with klat's {@code
 * TestPki}): the brokers' PKCS#12 key store, whose certificate must name {@code 127.0.0.1} (or the
 * advertised host) and allow client use too when a listener is {@link ListenerSecurity#MTLS} (the
 * fixture's admin client presents it there), and a PKCS#12 trust store holding the CA that signs
 * the brokers' and the clients' certificates.
 *
 * @param brokerKeyStore the brokers' key store (one certificate for every broker)
 * @param trustStore the CA
 * @param password the password of both stores and of the key
 */
public record ClusterTls(Path brokerKeyStore, Path trustStore, String password) {
  public ClusterTls {
    Objects.requireNonNull(brokerKeyStore, "brokerKeyStore");
    Objects.requireNonNull(trustStore, "trustStore");
    Objects.requireNonNull(password, "password");
  }
}
