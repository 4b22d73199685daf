package dev.klat.it.agent;

import static dev.klat.it.agent.CollectorEndToEndIT.awaitHealthy;
import static dev.klat.it.agent.CollectorEndToEndIT.freePort;
import static dev.klat.it.agent.CollectorEndToEndIT.get;
import static dev.klat.it.agent.CollectorEndToEndIT.startCollector;
import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.kafka.cluster.ClusterTls;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import dev.klat.kafka.cluster.Listener;
import dev.klat.kafka.cluster.ListenerSecurity;
import dev.klat.kafka.cluster.TopicSpec;
import dev.klat.testsupport.tls.TestPki;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The collector as a client of a secured cluster, with ACLs on: one broker (with the broker probe)
 * whose {@link Listener#CLIENT} is SASL_SSL with SCRAM-SHA-512 and whose {@link
 * Listener#SECOND_CLIENT} is SSL with client certificates required, shared by both tests. The
 * collector's principal, {@code User:klat-collector} on both listeners (its SCRAM user, and the
 * common name of its certificate), holds only the ACLs docs/security.md lists; the applications run
 * as the fixture's admin. The collector discovers the broker over SASL_SSL ({@code
 * brokers.kafka-config}), reads its request metrics over JMX with TLS and a password ({@code
 * brokers.jmx-*}, the CA in the collector JVM's default trust store), and the sampled records get
 * exact broker instants; then scaled out, the ingest role writing over SASL_SSL and two join
 * members reading over mTLS ({@code spans.kafka.config}), every sampled record is counted once.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredClusterIT {
  private static final String PRINCIPAL = "klat-collector";
  private static final String TOPIC = "secured-e2e";
  private static final String GROUP = "secured-e2e-group";
  private static final String SCALE_TOPIC = "secured-scale";
  private static final String SCALE_GROUP = "secured-scale-group";
  private static final int RECORDS = 150;
  private static final int SCALE_RECORDS = 300;
  private static final Pattern COUNT = Pattern.compile("\"count\":(\\d+)");

  private static Path dir;
  private static int otlpPort;
  private static KafkaCluster cluster;
  private static Path scramConfig;
  private static Path mtlsConfig;
  private static Path appConfig;
  private static Path jmxPassword;
  private static Path trustStore;

  @BeforeAll
  static void startSecuredCluster() throws Exception {
    dir = Files.createDirectories(Paths.get("target", "secured-cluster-it")).toAbsolutePath();
    TestPki pki = TestPki.create(dir.resolve("pki-" + System.nanoTime()), "klat IT CA");
    TestPki.Issued broker = pki.leaf("klat-broker").serverAndClient().issue();
    TestPki.Issued collector = pki.leaf(PRINCIPAL).client().issue();
    String scramPassword = "scram-" + System.nanoTime();
    String jmxSecret = "jmx-" + System.nanoTime();
    trustStore = pki.trustStore();
    // The probes of the broker send to whichever collector listens here: the one of the test.
    otlpPort = freePort();
    cluster =
        KafkaClusterSpec.brokers(1)
            .name("secured")
            .tls(new ClusterTls(broker.keyStore(), pki.trustStore(), TestPki.STORE_PASSWORD))
            .listener(Listener.CLIENT, ListenerSecurity.SASL_SSL_SCRAM)
            .listener(Listener.SECOND_CLIENT, ListenerSecurity.MTLS)
            .scramUser(PRINCIPAL, scramPassword)
            .tlsUser(PRINCIPAL, collector.keyStore())
            .jmxUser("klat-monitor", jmxSecret)
            .brokerProbe(
                Paths.get(System.getProperty("klat.broker-probe.jar")),
                "http://127.0.0.1:" + otlpPort)
            .start();
    cluster.createTopics(
        TopicSpec.named(TOPIC).partitions(2).build(),
        TopicSpec.named(SCALE_TOPIC).partitions(2).build());
    cluster.createAcls(collectorAcls());
    scramConfig = write("collector-scram.properties", clientOnly(Listener.CLIENT));
    mtlsConfig = write("collector-mtls.properties", clientOnly(Listener.SECOND_CLIENT));
    appConfig = write("app-admin.properties", withoutBootstrap(cluster.clientProperties()));
    jmxPassword = Files.writeString(dir.resolve("jmx-password"), jmxSecret + "\n");
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * What docs/security.md lists, and nothing more: Describe on the observed topics (discovery's
   * replica counts); on the span topics Create (klat creates them), Write (ingest), Read and
   * Describe (join); Read on the join members' group.
   */
  private static List<AclBinding> collectorAcls() {
    List<AclBinding> acls = new ArrayList<>();
    for (String topic : List.of(TOPIC, SCALE_TOPIC)) {
      acls.add(allow(ResourceType.TOPIC, topic, AclOperation.DESCRIBE));
    }
    for (String topic : List.of("klat-spans", "klat-metrics", "klat-logs")) {
      for (AclOperation op :
          List.of(
              AclOperation.CREATE, AclOperation.WRITE, AclOperation.READ, AclOperation.DESCRIBE)) {
        acls.add(allow(ResourceType.TOPIC, topic, op));
      }
    }
    acls.add(allow(ResourceType.GROUP, "klat-collector", AclOperation.READ));
    return acls;
  }

  private static AclBinding allow(ResourceType type, String name, AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, name, PatternType.LITERAL),
        new AccessControlEntry("User:" + PRINCIPAL, "*", operation, AclPermissionType.ALLOW));
  }

  @Test
  void discoversTheBrokerOverSaslSslAndReadsItOverJmxWithTlsAndAPassword() throws Exception {
    int adminPort = freePort();
    String jmxUrl = cluster.broker(1).jmxServiceUrl();
    String jmxPort = jmxUrl.substring(jmxUrl.lastIndexOf(':') + 1, jmxUrl.lastIndexOf('/'));
    Process collector =
        startCollector(
            // RMI over TLS trusts the JVM's default trust store (docs/security.md).
            List.of(
                "-Djavax.net.ssl.trustStore=" + trustStore,
                "-Djavax.net.ssl.trustStorePassword=" + TestPki.STORE_PASSWORD,
                "-Djavax.net.ssl.trustStoreType=PKCS12"),
            otlpPort,
            adminPort,
            "--otlp.grpc.enabled=false",
            "--brokers.bootstrap=" + cluster.bootstrapServers(),
            "--brokers.kafka-config=" + scramConfig,
            "--brokers.jmx-port=" + jmxPort,
            "--brokers.jmx-username=klat-monitor",
            "--brokers.jmx-password-file=" + jmxPassword,
            "--brokers.jmx-ssl=true",
            "--brokers.scrape-interval=1s",
            "--brokers.discovery-interval=2s");
    try {
      awaitHealthy(adminPort, collector);
      String brokers = awaitBrokerDiscovered(adminPort);
      assertThat(brokers)
          .as("discovered over SASL_SSL with brokers.kafka-config")
          .contains("\"nodeId\":1,\"discovered\":true")
          .contains("\"errors\":0");
      BrokerProbeIT.awaitLiveProbes(adminPort, 1);
      AppJvm.Result app =
          AppJvm.run(
              "4.4.0",
              appOptions(),
              ConsumerApp.class,
              "e2e",
              cluster.bootstrapServers(),
              TOPIC,
              GROUP,
              "classic",
              Integer.toString(RECORDS),
              "10",
              "0");
      assertThat(app.exitCode()).as(app.output()).isZero();
      String answer = BrokerProbeIT.awaitBreakdowns(adminPort, TOPIC, GROUP, RECORDS);
      BrokerProbeIT.assertMeasuredByTheProbe(answer, RECORDS, RECORDS);
      assertThat(get(adminPort, "/api/brokers", null))
          .as("the broker's request metrics, read over JMX with TLS and a password")
          .contains("\"up\":true")
          .contains("\"source\":\"jmx\"");
    } finally {
      stop(collector);
    }
  }

  @Test
  void scaledOutOverSaslSslAndMtlsEverySampledRecordCountsOnce() throws Exception {
    List<String> ingestOptions =
        List.of(
            "--mode=ingest",
            "--otlp.grpc.enabled=false",
            "--spans.kafka.bootstrap-servers=" + cluster.bootstrapServers(),
            "--spans.kafka.config=" + scramConfig,
            "--spans.kafka.partitions=4",
            "--spans.kafka.replication-factor=1");
    List<String> joinOptions =
        List.of(
            "--mode=join",
            "--otlp.grpc.enabled=false",
            "--spans.kafka.bootstrap-servers=" + cluster.secondClientBootstrapServers(),
            "--spans.kafka.config=" + mtlsConfig,
            "--spans.kafka.partitions=4",
            "--spans.kafka.replication-factor=1",
            "--spans.kafka.session-timeout=6s");
    List<Process> processes = new ArrayList<>();
    try {
      int ingestAdmin = freePort();
      Process ingest = startCollector(otlpPort, ingestAdmin, ingestOptions.toArray(String[]::new));
      processes.add(ingest);
      awaitHealthy(ingestAdmin, ingest);
      int[] memberPorts = {freePort(), freePort()};
      for (int port : memberPorts) {
        Process member = startCollector(freePort(), port, joinOptions.toArray(String[]::new));
        processes.add(member);
        awaitHealthy(port, member);
      }
      AppJvm.Result app =
          AppJvm.run(
              "4.4.0",
              appOptions(),
              ConsumerApp.class,
              "e2e",
              cluster.bootstrapServers(),
              SCALE_TOPIC,
              SCALE_GROUP,
              "classic",
              Integer.toString(SCALE_RECORDS),
              "5",
              "0");
      assertThat(app.exitCode()).as(app.output()).isZero();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      long counted = 0;
      while (counted < SCALE_RECORDS && System.nanoTime() < deadline) {
        Thread.sleep(500);
        counted = 0;
        for (int port : memberPorts) {
          counted += count(port);
        }
      }
      // A duplicate would show within a few commits.
      Thread.sleep(2_000);
      counted = 0;
      long probeRead = 0;
      for (int port : memberPorts) {
        counted += count(port);
        probeRead += BrokerProbeIT.number(get(port, "/api/stats", null), "probeTopicRecordsRead");
      }
      assertThat(counted)
          .as("breakdowns across the join members, through the ACL'd span topics")
          .isEqualTo(SCALE_RECORDS);
      assertThat(probeRead).as("the probe topic read over mTLS").isPositive();
      for (Process p : processes) {
        assertThat(p.isAlive()).isTrue();
      }
    } finally {
      for (Process p : processes) {
        stop(p);
      }
    }
  }

  private static List<String> appOptions() {
    List<String> options =
        new ArrayList<>(AppJvm.agentOptions("http://127.0.0.1:" + otlpPort, "1.0"));
    options.add("-Dklat.it.client-config=" + appConfig);
    return options;
  }

  private static String awaitBrokerDiscovered(int adminPort) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String brokers = get(adminPort, "/api/brokers", null);
    while (!(brokers.contains("\"discovered\":true") && brokers.contains("\"up\":true"))
        && System.nanoTime() < deadline) {
      Thread.sleep(200);
      brokers = get(adminPort, "/api/brokers", null);
    }
    return brokers;
  }

  private static long count(int adminPort) throws IOException {
    String answer =
        get(
            adminPort,
            "/api/breakdown?topic=" + SCALE_TOPIC + "&group=" + SCALE_GROUP + "&window=10m",
            null);
    Matcher m = COUNT.matcher(answer);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  // The collector's client file: security settings only, as an operator writes it.
  private static Properties clientOnly(Listener listener) {
    return withoutBootstrap(cluster.clientProperties(listener, PRINCIPAL));
  }

  private static Properties withoutBootstrap(Properties p) {
    p.remove("bootstrap.servers");
    return p;
  }

  private static Path write(String name, Properties p) throws IOException {
    Path file = dir.resolve(name);
    try (Writer out = Files.newBufferedWriter(file)) {
      p.store(out, null);
    }
    return file;
  }

  private static void stop(Process p) throws InterruptedException {
    p.destroy();
    if (!p.waitFor(15, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(5, TimeUnit.SECONDS);
    }
  }
}
