package dev.klat.kafka.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.testsupport.tls.TestPki;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What securing the client listeners writes into the brokers' configuration and the clients'. */
class ClusterSecurityTest {

  @Test
  void scramAndMtlsListenersWithAclsOn(@TempDir Path dir) {
    TestPki pki = TestPki.create(dir, "test CA");
    TestPki.Issued broker = pki.leaf("klat-broker").serverAndClient().issue();
    TestPki.Issued client = pki.leaf("klat-collector").client().issue();
    KafkaClusterSpec spec =
        KafkaClusterSpec.brokers(1)
            .tls(new ClusterTls(broker.keyStore(), pki.trustStore(), TestPki.STORE_PASSWORD))
            .listener(Listener.CLIENT, ListenerSecurity.SASL_SSL_SCRAM)
            .listener(Listener.SECOND_CLIENT, ListenerSecurity.MTLS)
            .scramUser("klat-collector", "pw-1")
            .tlsUser("klat-collector", client.keyStore())
            .build();
    ClusterSecurity security = new ClusterSecurity(spec);

    Properties brokerConfig = security.brokerProperties();
    assertThat(brokerConfig)
        .containsEntry(
            "listener.security.protocol.map",
            "CLIENT:SASL_SSL,SECOND_CLIENT:SSL,REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT")
        .containsEntry("listener.name.client.sasl.enabled.mechanisms", "SCRAM-SHA-512")
        .containsEntry("listener.name.second_client.ssl.client.auth", "required")
        .containsEntry(
            "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        .containsEntry("super.users", "User:ANONYMOUS;User:klat-admin;User:klat-broker");
    assertThat(security.formatArguments())
        .contains("--add-scram", "SCRAM-SHA-512=[name=klat-collector,password=pw-1]")
        .anyMatch(a -> a.startsWith("SCRAM-SHA-512=[name=klat-admin,password="));

    Properties scram = security.client(Listener.CLIENT, "k:1", "klat-collector");
    assertThat(scram)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
    assertThat(scram.getProperty("sasl.jaas.config"))
        .contains("username=\"klat-collector\"", "password=\"pw-1\"");
    Properties mtls = security.client(Listener.SECOND_CLIENT, "k:2", "klat-collector");
    assertThat(mtls)
        .containsEntry("security.protocol", "SSL")
        .containsEntry("ssl.keystore.location", client.keyStore().toAbsolutePath().toString());
    assertThat(security.admin("k:1").getProperty("sasl.jaas.config"))
        .contains("username=\"klat-admin\"");
    assertThatThrownBy(() -> security.client(Listener.CLIENT, "k:1", "nobody"))
        .hasMessageContaining("no SCRAM user nobody");
  }

  @Test
  void aJmxUserGetsTlsAndOwnerOnlyFiles(@TempDir Path dir) throws Exception {
    TestPki pki = TestPki.create(dir.resolve("pki"), "test CA");
    TestPki.Issued broker = pki.leaf("klat-broker").serverAndClient().issue();
    KafkaClusterSpec spec =
        KafkaClusterSpec.brokers(1)
            .tls(new ClusterTls(broker.keyStore(), pki.trustStore(), TestPki.STORE_PASSWORD))
            .jmxUser("monitor", "pw")
            .build();
    Path brokerDir = dir.resolve("broker-1");
    assertThat(ClusterSecurity.jmxOptions(spec, brokerDir))
        .contains(
            "-Dcom.sun.management.jmxremote.authenticate=true",
            "-Dcom.sun.management.jmxremote.ssl=true",
            "-Dcom.sun.management.jmxremote.registry.ssl=true");
    for (String file : new String[] {"jmxremote.password", "jmxremote-ssl.properties"}) {
      assertThat(
              java.nio.file.attribute.PosixFilePermissions.toString(
                  java.nio.file.Files.getPosixFilePermissions(brokerDir.resolve(file))))
          .as(file)
          .isEqualTo("rw-------");
    }
    assertThat(ClusterSecurity.jmxOptions(KafkaClusterSpec.brokers(1).build(), brokerDir))
        .containsExactly(
            "-Dcom.sun.management.jmxremote.authenticate=false",
            "-Dcom.sun.management.jmxremote.ssl=false");
  }

  @Test
  void aPlaintextClusterAddsNothingAndASecuredOneNeedsTls() {
    assertThat(new ClusterSecurity(KafkaClusterSpec.brokers(1).build()).brokerProperties())
        .isEmpty();
    assertThatThrownBy(
            () ->
                KafkaClusterSpec.brokers(1)
                    .listener(Listener.CLIENT, ListenerSecurity.MTLS)
                    .build())
        .hasMessageContaining("tls");
    assertThatThrownBy(
            () -> KafkaClusterSpec.brokers(1).listener(Listener.REPLICATION, ListenerSecurity.MTLS))
        .hasMessageContaining("only the client listeners");
  }
}
