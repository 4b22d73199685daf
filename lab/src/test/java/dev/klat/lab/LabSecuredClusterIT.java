package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.testsupport.JdkIndependent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lab on a cluster that authenticates and authorizes, as a user's often does: one broker whose
 * client listener takes SASL/PLAIN and whose authorizer denies what no ACL allows. Without ACLs the
 * lab stops with the ones it needs; with them it runs an experiment through the {@code
 * --command-config} file, its own clients and its producer and consumer processes alike.
 *
 * <p>CI's second pass (JDK 25, {@link JdkIndependent#leftToFirstPass()}) stops once the ACLs are in
 * place, about 30 s sooner: its refused run has already authenticated over SASL/PLAIN with the
 * file's settings on that JDK and named the ACLs. The allowed run adds the lab's producer and
 * consumer processes passing the same settings to kafka-clients and the lab's measurement, which
 * LabIT runs on that JDK; SecuredClusterIT has applications with the agent authenticate over
 * SASL_SSL there.
 */
class LabSecuredClusterIT {
  private static final Path ROOT =
      Paths.get(System.getProperty("klat.lab.root", "..")).toAbsolutePath().normalize();
  private static final Path TARGET = ROOT.resolve("lab/target");
  private static final String ALICE = "User:alice";

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void withoutAclsItNamesThemAndWithThemItRunsOverSasl() throws Exception {
    try (KafkaCluster cluster =
        KafkaClusterSpec.brokers(1)
            .name("lab-secured")
            .brokerProperty(
                "listener.security.protocol.map",
                "CLIENT:PLAINTEXT,SECOND_CLIENT:SASL_PLAINTEXT,REPLICATION:PLAINTEXT,"
                    + "CONTROLLER:PLAINTEXT")
            .brokerProperty("sasl.enabled.mechanisms", "PLAIN")
            .brokerProperty(
                "listener.name.second_client.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " user_alice=\"alice-secret\";")
            .brokerProperty(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            // The fixture's own listeners are PLAINTEXT: their anonymous principal runs the
            // cluster. Alice, on the SASL listener, may do only what an ACL allows.
            .brokerProperty("super.users", "User:ANONYMOUS")
            .start()) {
      Path out = TARGET.resolve("lab-secured-it");
      Files.createDirectories(out);
      Path config = out.resolve("alice.properties");
      Files.writeString(
          config,
          "security.protocol=SASL_PLAINTEXT\n"
              + "sasl.mechanism=PLAIN\n"
              + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
              + " required username=\"alice\" password=\"alice-secret\";\n");
      List<String> args =
          List.of(
              "--bootstrap-server",
              cluster.secondClientBootstrapServers(),
              "--command-config",
              config.toString(),
              "--experiment",
              "linger",
              "--quick",
              "--out",
              out.toString());

      Lab refused = new Lab(ROOT, LabOptions.parse(args, out), System.out, false);
      try {
        assertThatThrownBy(refused::run)
            .hasMessageContaining("refused to create topic klat-lab-")
            .hasMessageContaining(
                "needs CREATE, DESCRIBE and DELETE on topics prefixed klat-lab- and READ on"
                    + " consumer groups prefixed klat-lab-");
      } finally {
        refused.stop();
      }

      try (Admin admin = cluster.admin()) {
        admin
            .createAcls(
                List.of(
                    allow(ResourceType.TOPIC, AclOperation.CREATE),
                    allow(ResourceType.TOPIC, AclOperation.DESCRIBE),
                    allow(ResourceType.TOPIC, AclOperation.DELETE),
                    allow(ResourceType.TOPIC, AclOperation.WRITE),
                    allow(ResourceType.TOPIC, AclOperation.READ),
                    allow(ResourceType.GROUP, AclOperation.READ)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      if (JdkIndependent.leftToFirstPass()) {
        return;
      }
      Lab allowed = new Lab(ROOT, LabOptions.parse(args, out), System.out, false);
      Lab.Outcome outcome;
      try {
        outcome = allowed.run();
      } finally {
        allowed.stop();
      }
      assertThat(outcome.results()).hasSize(2);
      for (Result result : outcome.results()) {
        assertThat(result.error()).as(result.setting().label()).isNull();
        assertThat(result.breakdowns()).as(result.setting().label()).isGreaterThan(100);
      }
      try (Admin admin = cluster.admin()) {
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
            .as("the lab deleted its topics")
            .noneMatch(name -> name.startsWith(LabCluster.PREFIX));
      }
    }
  }

  private static AclBinding allow(ResourceType type, AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, LabCluster.PREFIX, PatternType.PREFIXED),
        new AccessControlEntry(ALICE, "*", operation, AclPermissionType.ALLOW));
  }
}
