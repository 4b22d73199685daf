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
 * Every collector serves its three listeners over TLS with tokens; the broker probe and the agents
 * export over https trusting the test CA, each with its own token. A wrong token and an untrusted
 * collector cost the application nothing, are explained once by the agent and counted.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredClusterIT {
  private static final String PRINCIPAL = "klat-collector";
  private static final String TOPIC = "secured-e2e";
  private static final String GROUP = "secured-e2e-group";
  private static final String SCALE_TOPIC = "secured-scale";
  // Topics of their own (the application wants an empty topic): records whose spans were refused
  // must not wait in another test's topic.
  private static final String REFUSED_TOKEN_TOPIC = "secured-refused-token";
  private static final String REFUSED_CA_TOPIC = "secured-refused-ca";
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
  private static Path caPem;
  private static Path otherCaPem;
  private static String appToken;
  private static CollectorEndToEndIT.SecuredAdmin securedAdmin;
  private static List<String> collectorSecurity;

  @BeforeAll
  static void startSecuredCluster() throws Exception {
    dir = Files.createDirectories(Paths.get("target", "secured-cluster-it")).toAbsolutePath();
    TestPki pki = TestPki.create(dir.resolve("pki-" + System.nanoTime()), "klat IT CA");
    TestPki.Issued broker = pki.leaf("klat-broker").serverAndClient().issue();
    TestPki.Issued collector = pki.leaf(PRINCIPAL).client().issue();
    // The collector's own listeners: TLS with a certificate for 127.0.0.1 and tokens on both.
    TestPki.Issued collectorServer =
        pki.leaf("localhost").server().fileName("collector-server").issue();
    caPem = pki.caPem();
    otherCaPem =
        TestPki.create(dir.resolve("other-pki-" + System.nanoTime()), "not klat's CA").caPem();
    String probeToken = "probe-" + System.nanoTime();
    appToken = "app-" + System.nanoTime();
    String adminToken = "admin-" + System.nanoTime();
    Path otlpTokens =
        Files.writeString(
            dir.resolve("otlp-tokens"), "brokers=" + probeToken + "\napps=" + appToken + "\n");
    Path adminTokens = Files.writeString(dir.resolve("admin-tokens"), "it=" + adminToken + "\n");
    collectorSecurity =
        List.of(
            "--tls.cert-file=" + collectorServer.certificatePem(),
            "--tls.key-file=" + collectorServer.keyPem(),
            "--otlp.auth-tokens-file=" + otlpTokens,
            "--admin.auth-tokens-file=" + adminTokens);
    securedAdmin = new CollectorEndToEndIT.SecuredAdmin(trustingSockets(pki), adminToken);
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
                "https://127.0.0.1:" + otlpPort)
            .brokerJvmOption("-Dklat.export.certificate=" + caPem)
            .brokerJvmOption("-Dklat.export.headers=Authorization=Bearer%20" + probeToken)
            .start();
    cluster.createTopics(
        TopicSpec.named(TOPIC).partitions(2).build(),
        TopicSpec.named(SCALE_TOPIC).partitions(2).build(),
        TopicSpec.named(REFUSED_TOKEN_TOPIC).partitions(1).build(),
        TopicSpec.named(REFUSED_CA_TOPIC).partitions(1).build());
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
    for (String topic : List.of(TOPIC, SCALE_TOPIC, REFUSED_TOKEN_TOPIC, REFUSED_CA_TOPIC)) {
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
        startSecured(
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
      AppJvm.Result app = runApp(appOptions(), TOPIC, GROUP, RECORDS, 10);
      assertThat(app.exitCode()).as(app.output()).isZero();
      String answer = BrokerProbeIT.awaitBreakdowns(adminPort, TOPIC, GROUP, RECORDS);
      BrokerProbeIT.assertMeasuredByTheProbe(answer, RECORDS, RECORDS);
      assertThat(get(adminPort, "/api/brokers", null))
          .as("the broker's request metrics, read over JMX with TLS and a password")
          .contains("\"up\":true")
          .contains("\"source\":\"jmx\"");
      assertThat(authRequests(adminPort, "accepted", "apps"))
          .as("the agent's exports, over TLS with its token")
          .isPositive();
      assertThat(authRequests(adminPort, "accepted", "brokers"))
          .as("the broker probe's exports, over TLS with its token")
          .isPositive();
    } finally {
      stop(collector);
    }
  }

  /**
   * An agent with a token the collector does not know, then one that does not trust the collector's
   * CA: the application consumes every record and exits as it would without klat, the agent
   * explains each problem once, and the collector counts the refused token.
   */
  @Test
  void aWrongTokenOrAnUntrustedCollectorCostsTheApplicationNothing() throws Exception {
    int adminPort = freePort();
    Process collector = startSecured(List.of(), otlpPort, adminPort, "--otlp.grpc.enabled=false");
    try {
      awaitHealthy(adminPort, collector);
      AppJvm.Result wrongToken =
          runApp(
              appOptions(caPem, "not-a-token"),
              REFUSED_TOKEN_TOPIC,
              GROUP + "-wrong-token",
              30,
              10);
      assertThat(wrongToken.exitCode()).as(wrongToken.output()).isZero();
      assertThat(occurrences(wrongToken.output(), "refused the credentials (HTTP 401)"))
          .as(wrongToken.output())
          .isEqualTo(1);
      assertThat(wrongToken.output()).doesNotContain("not-a-token");
      assertThat(authRequests(adminPort, "unknown", null)).isPositive();
      AppJvm.Result wrongCa =
          runApp(appOptions(otherCaPem, appToken), REFUSED_CA_TOPIC, GROUP + "-wrong-ca", 30, 10);
      assertThat(wrongCa.exitCode()).as(wrongCa.output()).isZero();
      assertThat(occurrences(wrongCa.output(), "the server certificate is not trusted"))
          .as(wrongCa.output())
          .isEqualTo(1);
      assertThat(wrongCa.output()).doesNotContain(appToken);
      // The broker's probe kept exporting through all of it.
      BrokerProbeIT.awaitLiveProbes(adminPort, 1);
      assertThat(collector.isAlive()).isTrue();
    } finally {
      stop(collector);
    }
  }

  /**
   * The end-to-end application (produce, then consume as {@code group}) with the agent's {@code
   * options}: {@code records} records, one every {@code intervalMs}.
   */
  private static AppJvm.Result runApp(
      List<String> options, String topic, String group, int records, int intervalMs)
      throws Exception {
    return AppJvm.run(
        "4.4.0",
        options,
        ConsumerApp.class,
        "e2e",
        cluster.bootstrapServers(),
        topic,
        group,
        "classic",
        Integer.toString(records),
        Integer.toString(intervalMs),
        "0");
  }

  private static int occurrences(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length())) {
      n++;
    }
    return n;
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
      Process ingest = startSecured(List.of(), otlpPort, ingestAdmin, ingestOptions);
      processes.add(ingest);
      awaitHealthy(ingestAdmin, ingest);
      int[] memberPorts = {freePort(), freePort()};
      for (int port : memberPorts) {
        Process member = startSecured(List.of(), freePort(), port, joinOptions);
        processes.add(member);
        awaitHealthy(port, member);
      }
      AppJvm.Result app = runApp(appOptions(), SCALE_TOPIC, SCALE_GROUP, SCALE_RECORDS, 5);
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
      // Every process still up, first: a member that never started leaves another to answer.
      for (Process p : processes) {
        assertThat(p.isAlive()).isTrue();
      }
      assertThat(counted)
          .as("breakdowns across the join members, through the ACL'd span topics")
          .isEqualTo(SCALE_RECORDS);
      assertThat(probeRead).as("the probe topic read over mTLS").isPositive();
    } finally {
      for (Process p : processes) {
        stop(p);
      }
    }
  }

  /**
   * A collector with TLS and tokens on its three listeners; {@code get} reaches its admin port with
   * the test CA and the admin token.
   */
  private static Process startSecured(
      List<String> jvmOptions, int otlpPort, int adminPort, List<String> options)
      throws IOException {
    CollectorEndToEndIT.SECURED_ADMINS.put(adminPort, securedAdmin);
    List<String> all = new ArrayList<>(options);
    all.addAll(collectorSecurity);
    return startCollector(jvmOptions, otlpPort, adminPort, all.toArray(String[]::new));
  }

  private static Process startSecured(
      List<String> jvmOptions, int otlpPort, int adminPort, String... options) throws IOException {
    return startSecured(jvmOptions, otlpPort, adminPort, List.of(options));
  }

  private static javax.net.ssl.SSLSocketFactory trustingSockets(TestPki pki) throws Exception {
    java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", pki.caCertificate());
    javax.net.ssl.TrustManagerFactory factory =
        javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context.getSocketFactory();
  }

  /** The agent exporting over https, trusting {@code ca}, with {@code token}. */
  private static List<String> appOptions(Path ca, String token) {
    List<String> options =
        new ArrayList<>(AppJvm.agentOptions("https://127.0.0.1:" + otlpPort, "1.0"));
    options.add("-Dklat.export.certificate=" + ca);
    options.add("-Dklat.export.headers=Authorization=Bearer%20" + token);
    options.add("-Dklat.it.client-config=" + appConfig);
    return options;
  }

  private static List<String> appOptions() {
    return appOptions(caPem, appToken);
  }

  /** The value of the auth counter for {@code result} and {@code token} on {@code /metrics}. */
  private static double authRequests(int adminPort, String result, String token)
      throws IOException {
    double sum = 0;
    for (String line : get(adminPort, "/metrics", null).split("\n")) {
      if (line.startsWith("klat_collector_auth_requests_total{")
          && line.contains("result=\"" + result + "\"")
          && (token == null || line.contains("token=\"" + token + "\""))) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
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
