package dev.klat.dashboards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What can be checked of {@code deploy/docker-compose.yml} without a Docker engine: the compose
 * file and every config it mounts parse and exist, every image is pinned, every port is bound to
 * loopback, every long-running service has a health check, the Dockerfiles copy files the build
 * makes and their ignore files let in, {@code promtool check config} accepts the Prometheus config
 * with our rules, and Grafana's provisioning refers only to datasource uids it defines.
 */
// Text checks and promtool: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class DeployTest {
  private static final Path DEPLOY = Repo.path("deploy");
  private static final Pattern PINNED = Pattern.compile("[\\w./-]+:(?!latest\\b)[\\w.-]+");

  private final JsonNode compose = Queries.read(Queries.YAML, DEPLOY.resolve("docker-compose.yml"));

  private Map<String, JsonNode> services() {
    Map<String, JsonNode> out = new TreeMap<>();
    compose.path("services").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  @Test
  void composeHasTheWholeStack() {
    assertThat(services().keySet())
        .contains(
            "kafka-1",
            "kafka-2",
            "kafka-3",
            "collector",
            "prometheus",
            "tempo",
            "grafana",
            "demo-producer",
            "demo-consumer",
            "scenario");
  }

  @Test
  void everyBrokerRunsTheProbeAndSendsToTheCollector() throws IOException {
    for (String broker : List.of("kafka-1", "kafka-2", "kafka-3")) {
      JsonNode environment = services().get(broker).path("environment");
      assertThat(environment.path("KAFKA_OPTS").asText())
          .as("KAFKA_OPTS of %s", broker)
          .contains("-javaagent:/opt/klat/klat-broker-probe.jar");
      assertThat(environment.path("KLAT_ENDPOINT").asText())
          .as("KLAT_ENDPOINT of %s", broker)
          .isEqualTo("http://collector:4318");
      // The apache/kafka image turns KAFKA_METRIC_REPORTERS into metric.reporters: without it the
      // broker never hands clients' pushed metrics to the forwarder (docs/client-telemetry.md).
      assertThat(environment.path("KAFKA_METRIC_REPORTERS").asText())
          .as("KAFKA_METRIC_REPORTERS of %s", broker)
          .isEqualTo("dev.klat.probe.telemetry.ClientTelemetryForwarder");
      assertThat(dockerfileLines(services().get(broker), "COPY"))
          .as("the image of %s carries the probe", broker)
          .anyMatch(line -> line.contains("/opt/klat/klat-broker-probe.jar"));
    }
  }

  @Test
  void everyImageIsPinnedByTag() throws IOException {
    for (Map.Entry<String, JsonNode> s : services().entrySet()) {
      String image = s.getValue().path("image").asText();
      assertThat(image).as("image of %s", s.getKey()).matches(PINNED);
      if (s.getValue().has("build")) {
        for (String from : dockerfileLines(s.getValue(), "FROM")) {
          assertThat(from).as("FROM in the Dockerfile of %s", s.getKey()).matches(PINNED);
        }
      }
    }
  }

  @Test
  void everyPortIsBoundToLoopback() {
    int ports = 0;
    for (Map.Entry<String, JsonNode> s : services().entrySet()) {
      for (JsonNode port : s.getValue().path("ports")) {
        ports++;
        assertThat(port.asText()).as("port of %s", s.getKey()).startsWith("127.0.0.1:");
      }
    }
    assertThat(ports).isGreaterThanOrEqualTo(5);
  }

  @Test
  void everyLongRunningServiceHasAHealthCheck() {
    for (Map.Entry<String, JsonNode> s : services().entrySet()) {
      boolean oneShot = s.getValue().path("restart").asText().equals("no");
      if (!oneShot) {
        assertThat(s.getValue().path("healthcheck").path("test").isArray())
            .as("health check of %s", s.getKey())
            .isTrue();
      }
    }
  }

  @Test
  void everyMountedFileExistsAndParses() {
    int mounts = 0;
    for (Map.Entry<String, JsonNode> s : services().entrySet()) {
      for (JsonNode volume : s.getValue().path("volumes")) {
        String source = volume.asText().split(":")[0];
        if (!source.startsWith(".")) {
          assertThat(compose.path("volumes").has(source))
              .as("named volume %s of %s is declared", source, s.getKey())
              .isTrue();
          continue;
        }
        mounts++;
        Path path = DEPLOY.resolve(source).normalize();
        assertThat(path).as("mounted by %s", s.getKey()).exists();
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(path)) {
          try (var walk = Files.walk(path)) {
            walk.filter(Files::isRegularFile).forEach(files::add);
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        } else {
          files.add(path);
        }
        for (Path f : files) {
          String name = f.getFileName().toString();
          if (name.endsWith(".yml") || name.endsWith(".yaml")) {
            assertThat(Queries.read(Queries.YAML, f)).as("%s parses", f).isNotNull();
          } else if (name.endsWith(".json")) {
            assertThat(Queries.read(Queries.JSON, f)).as("%s parses", f).isNotNull();
          }
        }
      }
    }
    assertThat(mounts).isGreaterThanOrEqualTo(6);
  }

  @Test
  void dockerfilesCopyWhatTheBuildMakesAndTheirIgnoreFilesLetIn() throws IOException {
    String buildScript =
        new String(Files.readAllBytes(DEPLOY.resolve("build.sh")), StandardCharsets.UTF_8);
    Set<String> dockerfiles = new HashSet<>();
    for (Map.Entry<String, JsonNode> s : services().entrySet()) {
      JsonNode build = s.getValue().path("build");
      if (build.isMissingNode()) {
        continue;
      }
      Path context = DEPLOY.resolve(build.path("context").asText()).normalize();
      assertThat(context).isEqualTo(Repo.root());
      Path dockerfile = context.resolve(build.path("dockerfile").asText());
      assertThat(dockerfile).as("Dockerfile of %s", s.getKey()).exists();
      if (!dockerfiles.add(dockerfile.toString())) {
        continue;
      }
      List<String> ignore =
          Files.readAllLines(Path.of(dockerfile + ".dockerignore"), StandardCharsets.UTF_8);
      for (String copy : dockerfileLines(s.getValue(), "COPY")) {
        String source = copy.split("\\s+")[0];
        assertThat(ignore)
            .as("%s.dockerignore lets in %s", dockerfile, source)
            .contains("!" + source);
        Path path = context.resolve(source);
        if (source.contains("/target/") && !Files.exists(path)) {
          // Made by deploy/build.sh, not by the reactor build this test runs in.
          assertThat(buildScript)
              .as("%s is made by deploy/build.sh", source)
              .contains(source.substring(source.indexOf("target/")));
        } else {
          assertThat(path).as("copied by %s", dockerfile).exists();
        }
      }
    }
    assertThat(dockerfiles).hasSize(3);
  }

  @Test
  void prometheusConfigPassesPromtoolWithOurRules(@TempDir Path dir) throws Exception {
    // Laid out as in the container: the config, and the rules mounted beside it under rules/.
    Files.copy(DEPLOY.resolve("prometheus/prometheus.yml"), dir.resolve("prometheus.yml"));
    Files.createDirectories(dir.resolve("rules"));
    for (Path rules : Queries.ruleFiles()) {
      Files.copy(rules, dir.resolve("rules").resolve(rules.getFileName()));
    }
    assertThat(volumeTarget("prometheus", "../dashboards/prometheus"))
        .isEqualTo("/etc/prometheus/rules");
    PromtoolTest.Result r =
        PromtoolTest.run("check", "config", dir.resolve("prometheus.yml").toString());
    assertThat(r.status()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS").contains("rules/klat-rules.yml");
  }

  @Test
  void theSecuredScrapeExamplePassesPromtoolWithTokenAndCaFiles(@TempDir Path dir)
      throws Exception {
    Path config = dir.resolve("prometheus-secured.yml");
    Files.copy(DEPLOY.resolve("prometheus/prometheus-secured.yml"), config);
    // promtool checks that the token file exists (the CA it reads only when scraping).
    Files.createDirectories(dir.resolve("secrets"));
    Files.writeString(dir.resolve("secrets/klat-admin-token"), "read-token\n");
    Files.writeString(dir.resolve("secrets/klat-ca.pem"), "");
    PromtoolTest.Result r = PromtoolTest.run("check", "config", config.toString());
    assertThat(r.status()).as(r.output()).isZero();
    JsonNode job = Queries.read(Queries.YAML, config).path("scrape_configs").path(0);
    assertThat(job.path("scheme").asText()).isEqualTo("https");
    assertThat(job.path("authorization").path("credentials_file").asText()).isNotEmpty();
    assertThat(job.path("tls_config").path("ca_file").asText()).isNotEmpty();
    assertThat(Files.readString(config)).contains("--admin.auth-tokens-file=");
  }

  @Test
  void prometheusScrapesServicesOnPortsTheyServe() {
    JsonNode config = Queries.read(Queries.YAML, DEPLOY.resolve("prometheus/prometheus.yml"));
    Set<String> brokers = new HashSet<>();
    for (JsonNode job : config.path("scrape_configs")) {
      for (JsonNode sc : job.path("static_configs")) {
        for (JsonNode target : sc.path("targets")) {
          String[] hostPort = target.asText().split(":");
          if (hostPort[0].equals("localhost")) {
            continue;
          }
          JsonNode service = services().get(hostPort[0]);
          assertThat(service).as("scrape target %s is a service", target).isNotNull();
          if (hostPort[0].startsWith("kafka-")) {
            brokers.add(sc.path("labels").path("broker").asText());
            assertThat(service.path("environment").path("KAFKA_OPTS").asText())
                .contains("=" + hostPort[1] + ":/opt/jmx-exporter/kafka-broker.yaml");
          } else {
            assertThat(service.path("command").toString()).contains("--admin.host=0.0.0.0");
            assertThat(hostPort[1]).isEqualTo("9464");
          }
        }
      }
    }
    assertThat(brokers).containsExactlyInAnyOrder("1", "2", "3");
  }

  @Test
  void theScaledProfileAddsJoinMembersThatPrometheusFindsInTheCollectorJob() {
    JsonNode join = services().get("collector-join");
    assertThat(join.path("profiles").toString()).contains("scaled");
    String command = join.path("command").toString();
    assertThat(command).contains("--mode=join", "--admin.host=0.0.0.0");
    assertThat(join.path("deploy").path("replicas").asInt()).isGreaterThan(1);
    // The agents and probes send to the collector service: in the scaled layout it is the ingest
    // role, switched by the environment, on the same Kafka as the members.
    String collector = services().get("collector").path("command").toString();
    assertThat(collector).contains("--mode=${KLAT_COLLECTOR_MODE:-all}");
    String spans = "--spans.kafka.bootstrap-servers=kafka-1:9092,kafka-2:9092,kafka-3:9092";
    assertThat(collector).contains(spans);
    assertThat(command).contains(spans);
    JsonNode config = Queries.read(Queries.YAML, DEPLOY.resolve("prometheus/prometheus.yml"));
    boolean found = false;
    for (JsonNode job : config.path("scrape_configs")) {
      if (job.path("job_name").asText().equals("klat-collector")) {
        for (JsonNode sd : job.path("dns_sd_configs")) {
          found |=
              sd.path("names").toString().contains("\"collector-join\"")
                  && sd.path("port").asInt() == 9464;
        }
      }
    }
    assertThat(found).as("the collector job finds the join members by DNS on 9464").isTrue();
  }

  @Test
  void collectorSendsTracesToTempoOtlpReceiver() {
    JsonNode tempo = Queries.read(Queries.YAML, DEPLOY.resolve("tempo/tempo.yaml"));
    String receiver =
        tempo
            .path("distributor")
            .path("receivers")
            .path("otlp")
            .path("protocols")
            .path("http")
            .path("endpoint")
            .asText();
    String port = receiver.substring(receiver.lastIndexOf(':') + 1);
    assertThat(services().get("collector").path("command").toString())
        .contains("--traces.endpoint=http://tempo:" + port);
    assertThat(volumeTarget("tempo", "./tempo/tempo.yaml"))
        .isEqualTo(services().get("tempo").path("command").get(0).asText().split("=")[1]);
  }

  @Test
  void grafanaProvisioningRefersOnlyToDatasourcesItDefines() {
    Path provisioning = DEPLOY.resolve("grafana/provisioning");
    JsonNode datasources =
        Queries.read(Queries.YAML, provisioning.resolve("datasources/klat.yml"))
            .path("datasources");
    Set<String> defined = new HashSet<>();
    datasources.forEach(d -> defined.add(d.path("uid").asText()));
    assertThat(defined).containsExactlyInAnyOrder(Config.PROMETHEUS_UID, Config.TEMPO_UID);

    Set<String> referenced = new HashSet<>();
    collectDatasourceUidRefs(datasources, referenced);
    assertThat(referenced).isNotEmpty();
    assertThat(defined).containsAll(referenced);

    // Exemplars link to Tempo through the trace_id label the collector writes.
    JsonNode prometheus = datasources.get(0);
    assertThat(
            prometheus
                .path("jsonData")
                .path("exemplarTraceIdDestinations")
                .get(0)
                .path("name")
                .asText())
        .isEqualTo("trace_id");

    // The dashboards Grafana loads are the generated ones, and use only these uids.
    String dashboardsPath =
        Queries.read(Queries.YAML, provisioning.resolve("dashboards/klat.yml"))
            .path("providers")
            .get(0)
            .path("options")
            .path("path")
            .asText();
    assertThat(volumeTarget("grafana", "../dashboards/grafana")).isEqualTo(dashboardsPath);
    Set<String> used = new HashSet<>();
    for (Path file : Queries.dashboardFiles()) {
      MetricNamesTest.collectUids(Queries.read(Queries.JSON, file), used);
    }
    assertThat(defined).containsAll(used);
  }

  @Test
  void shellScriptsParse() throws Exception {
    for (String[] check :
        new String[][] {{"sh", "-n", "scenario/switch.sh"}, {"bash", "-n", "build.sh"}}) {
      Process p =
          new ProcessBuilder(check).directory(DEPLOY.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor()).as(String.join(" ", check) + ": " + out).isZero();
    }
  }

  private static void collectDatasourceUidRefs(JsonNode node, Set<String> out) {
    node.fields()
        .forEachRemaining(
            e -> {
              if (e.getKey().equals("datasourceUid")) {
                out.add(e.getValue().asText());
              }
            });
    node.forEach(child -> collectDatasourceUidRefs(child, out));
  }

  private String volumeTarget(String service, String source) {
    for (JsonNode volume : services().get(service).path("volumes")) {
      String[] parts = volume.asText().split(":");
      if (parts[0].equals(source)) {
        return parts[1];
      }
    }
    throw new AssertionError(service + " does not mount " + source);
  }

  private List<String> dockerfileLines(JsonNode service, String instruction) throws IOException {
    JsonNode build = service.path("build");
    Path dockerfile =
        DEPLOY.resolve(build.path("context").asText()).resolve(build.path("dockerfile").asText());
    List<String> out = new ArrayList<>();
    Matcher m =
        Pattern.compile("(?m)^" + instruction + "\\s+(?:--\\S+\\s+)*(.+)$")
            .matcher(new String(Files.readAllBytes(dockerfile), StandardCharsets.UTF_8));
    while (m.find()) {
      out.add(m.group(1).trim());
    }
    assertThat(out).as("%s lines in %s", instruction, dockerfile).isNotEmpty();
    return out;
  }
}
