package dev.klat.kafka.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * What securing a cluster's client listeners adds: the brokers' listener, TLS, SASL and ACL
 * configuration, the SCRAM users written at format time, and the client properties of the admin and
 * of named principals.
 */
final class ClusterSecurity {
  /** The SCRAM user of the fixture's own admin client, a super user. */
  static final String ADMIN = "klat-admin";

  private static final String SCRAM = "SCRAM-SHA-512";
  private static final String SCRAM_MODULE =
      "org.apache.kafka.common.security.scram.ScramLoginModule";

  private final KafkaClusterSpec spec;
  private final String adminPassword = UUID.randomUUID().toString();
  private final String brokerPrincipal;

  ClusterSecurity(KafkaClusterSpec spec) {
    this.spec = spec;
    this.brokerPrincipal = spec.tls() == null ? null : commonName(spec.tls());
  }

  /** What the brokers' configuration gets on top of the fixture's defaults. */
  Properties brokerProperties() {
    Properties p = new Properties();
    if (!spec.secured()) {
      return p;
    }
    ClusterTls tls = spec.tls();
    p.put(
        "listener.security.protocol.map",
        "CLIENT:"
            + protocol(spec.security(Listener.CLIENT))
            + ",SECOND_CLIENT:"
            + protocol(spec.security(Listener.SECOND_CLIENT))
            + ",REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("ssl.keystore.type", "PKCS12");
    p.put("ssl.keystore.location", tls.brokerKeyStore().toAbsolutePath().toString());
    p.put("ssl.keystore.password", tls.password());
    p.put("ssl.key.password", tls.password());
    p.put("ssl.truststore.type", "PKCS12");
    p.put("ssl.truststore.location", tls.trustStore().toAbsolutePath().toString());
    p.put("ssl.truststore.password", tls.password());
    // Certificate principals by their common name: User:klat-collector, not the whole DN (whose
    // RFC 2253 form may put the CN anywhere: "O=klat tests,CN=klat-collector").
    p.put("ssl.principal.mapping.rules", "RULE:^(.*,)?CN=([^,]+)(,.*)?$/$2/,DEFAULT");
    for (Listener listener : List.of(Listener.CLIENT, Listener.SECOND_CLIENT)) {
      String prefix = "listener.name." + listener.name().toLowerCase(Locale.ROOT) + ".";
      switch (spec.security(listener)) {
        case SASL_SSL_SCRAM -> {
          p.put(prefix + "sasl.enabled.mechanisms", SCRAM);
          p.put(prefix + "scram-sha-512.sasl.jaas.config", SCRAM_MODULE + " required;");
        }
        case MTLS -> p.put(prefix + "ssl.client.auth", "required");
        case PLAINTEXT -> {}
      }
    }
    p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    // ANONYMOUS: the brokers and controllers to each other, over the loopback-only plaintext
    // replication and controller listeners.
    p.put(
        "super.users",
        "User:ANONYMOUS;User:"
            + ADMIN
            + (brokerPrincipal == null ? "" : ";User:" + brokerPrincipal));
    return p;
  }

  /**
   * The JVM options of a broker's remote JMX: open and plaintext, or with {@link
   * KafkaClusterSpec#jmxUser} TLS (registry and connector, the brokers' key store, through the
   * agent's own {@code ssl.config.file} so that the broker's default TLS context is untouched) and
   * a read-only user, whose files go into the broker's {@code directory}.
   */
  static List<String> jmxOptions(KafkaClusterSpec spec, Path directory) {
    if (spec.jmxUser() == null) {
      return List.of(
          "-Dcom.sun.management.jmxremote.authenticate=false",
          "-Dcom.sun.management.jmxremote.ssl=false");
    }
    ClusterTls tls = spec.tls();
    Path password = directory.resolve("jmxremote.password");
    Path access = directory.resolve("jmxremote.access");
    Path ssl = directory.resolve("jmxremote-ssl.properties");
    try {
      Files.createDirectories(directory);
      Files.writeString(access, spec.jmxUser() + " readonly\n");
      writeOwnerOnly(password, spec.jmxUser() + " " + spec.jmxPassword() + "\n");
      writeOwnerOnly(
          ssl,
          "javax.net.ssl.keyStore="
              + tls.brokerKeyStore().toAbsolutePath()
              + "\njavax.net.ssl.keyStorePassword="
              + tls.password()
              + "\njavax.net.ssl.keyStoreType=PKCS12\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the JMX files in " + directory, e);
    }
    return List.of(
        "-Dcom.sun.management.jmxremote.authenticate=true",
        "-Dcom.sun.management.jmxremote.password.file=" + password,
        "-Dcom.sun.management.jmxremote.access.file=" + access,
        "-Dcom.sun.management.jmxremote.ssl=true",
        "-Dcom.sun.management.jmxremote.registry.ssl=true",
        "-Dcom.sun.management.jmxremote.ssl.config.file=" + ssl);
  }

  // The JVM's agent refuses a password or TLS configuration file that others can read.
  private static void writeOwnerOnly(Path file, String text) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text);
  }

  /** The {@code kafka-storage format} arguments that create the SCRAM users. */
  List<String> formatArguments() {
    if (!usesScram()) {
      return List.of();
    }
    List<String> args = new ArrayList<>();
    args.add("--add-scram");
    args.add(scram(ADMIN, adminPassword));
    for (Map.Entry<String, String> user : spec.scramUsers().entrySet()) {
      args.add("--add-scram");
      args.add(scram(user.getKey(), user.getValue()));
    }
    return Collections.unmodifiableList(args);
  }

  private boolean usesScram() {
    return spec.security(Listener.CLIENT) == ListenerSecurity.SASL_SSL_SCRAM
        || spec.security(Listener.SECOND_CLIENT) == ListenerSecurity.SASL_SSL_SCRAM;
  }

  private static String scram(String name, String password) {
    return SCRAM + "=[name=" + name + ",password=" + password + "]";
  }

  /** The fixture's admin on {@link Listener#CLIENT}: a super user. */
  Properties admin(String bootstrap) {
    return switch (spec.security(Listener.CLIENT)) {
      case PLAINTEXT -> plaintext(bootstrap);
      case SASL_SSL_SCRAM -> scramClient(bootstrap, ADMIN, adminPassword);
      case MTLS -> tlsClient(bootstrap, spec.tls().brokerKeyStore().toAbsolutePath().toString());
    };
  }

  /**
   * A named principal on {@code listener}: a {@link KafkaClusterSpec.Builder#scramUser} or a {@link
   * KafkaClusterSpec.Builder#tlsUser}, by the listener's security.
   */
  Properties client(Listener listener, String bootstrap, String principal) {
    return switch (spec.security(listener)) {
      case PLAINTEXT -> plaintext(bootstrap);
      case SASL_SSL_SCRAM -> {
        String password = spec.scramUsers().get(principal);
        if (password == null) {
          throw new IllegalArgumentException("no SCRAM user " + principal + " in the spec");
        }
        yield scramClient(bootstrap, principal, password);
      }
      case MTLS -> {
        Path keyStore = spec.tlsUsers().get(principal);
        if (keyStore == null) {
          throw new IllegalArgumentException("no TLS user " + principal + " in the spec");
        }
        yield tlsClient(bootstrap, keyStore.toAbsolutePath().toString());
      }
    };
  }

  private static Properties plaintext(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    return p;
  }

  private Properties scramClient(String bootstrap, String user, String password) {
    Properties p = trusting(bootstrap);
    p.put("security.protocol", "SASL_SSL");
    p.put("sasl.mechanism", SCRAM);
    p.put(
        "sasl.jaas.config",
        SCRAM_MODULE + " required username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }

  private Properties tlsClient(String bootstrap, String keyStore) {
    Properties p = trusting(bootstrap);
    p.put("security.protocol", "SSL");
    p.put("ssl.keystore.type", "PKCS12");
    p.put("ssl.keystore.location", keyStore);
    p.put("ssl.keystore.password", spec.tls().password());
    p.put("ssl.key.password", spec.tls().password());
    return p;
  }

  private Properties trusting(String bootstrap) {
    Properties p = plaintext(bootstrap);
    p.put("ssl.truststore.type", "PKCS12");
    p.put("ssl.truststore.location", spec.tls().trustStore().toAbsolutePath().toString());
    p.put("ssl.truststore.password", spec.tls().password());
    return p;
  }

  private static String protocol(ListenerSecurity security) {
    return switch (security) {
      case PLAINTEXT -> "PLAINTEXT";
      case SASL_SSL_SCRAM -> "SASL_SSL";
      case MTLS -> "SSL";
    };
  }

  // The common name of the brokers' certificate: their principal where they present it.
  private static String commonName(ClusterTls tls) {
    try (InputStream in = Files.newInputStream(tls.brokerKeyStore())) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, tls.password().toCharArray());
      for (String alias : Collections.list(store.aliases())) {
        if (store.getCertificate(alias) instanceof X509Certificate c) {
          for (Rdn rdn : new LdapName(c.getSubjectX500Principal().getName()).getRdns()) {
            if (rdn.getType().equalsIgnoreCase("CN")) {
              return rdn.getValue().toString();
            }
          }
        }
      }
      throw new IllegalArgumentException("no certificate with a CN in " + tls.brokerKeyStore());
    } catch (IOException | GeneralSecurityException | InvalidNameException e) {
      throw new IllegalArgumentException("cannot read " + tls.brokerKeyStore() + ": " + e, e);
    }
  }
}
