package dev.klat.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.config.AgentConfig.Status;
import dev.klat.agentcore.log.AgentLog;
import dev.klat.agentcore.log.AgentLog.Level;
import dev.klat.agentcore.log.CapturedLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AgentConfigTest {

  @TempDir Path dir;

  private final CapturedLog captured = new CapturedLog();

  private AgentConfig load(Map<String, String> sys, Map<String, String> env) {
    return AgentConfig.load(sys, env, captured.log);
  }

  private Path file(String content) throws IOException {
    Path file = dir.resolve("klat.properties");
    Files.writeString(file, content, StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void defaultsWhenNothingIsSet() {
    AgentConfig config = load(Map.of(), Map.of());

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.active()).isTrue();
    assertThat(config.errors()).isEmpty();
    assertThat(config.enabled()).isTrue();
    assertThat(config.endpoint()).hasToString("http://127.0.0.1:4318");
    assertThat(config.tracesEndpoint()).hasToString("http://127.0.0.1:4318/v1/traces");
    assertThat(config.metricsEndpoint()).hasToString("http://127.0.0.1:4318/v1/metrics");
    assertThat(config.serviceName()).isEqualTo("kafka-app");
    assertThat(config.samplingProbability()).isEqualTo(0.01);
    assertThat(config.samplingMaxPerSecond()).isEqualTo(100.0);
    assertThat(config.topicsInclude().pattern()).isEqualTo(".*");
    assertThat(config.topicsExclude().pattern()).isEqualTo("__.*|_confluent.*|_schemas");
    assertThat(config.headersEnabled()).isTrue();
    assertThat(config.metricsIntervalMillis()).isEqualTo(10_000L);
    assertThat(config.exportQueueSize()).isEqualTo(2048);
    assertThat(config.exportTimeoutMillis()).isEqualTo(10_000L);
    assertThat(config.exportGzip()).isTrue();
    assertThat(config.logLevel()).isEqualTo(Level.INFO);
    assertThat(config.configFile()).isNull();
    assertThat(config.testClockOffsetMillis()).isZero();
    assertThat(captured.text()).isEmpty();
  }

  @Test
  void theTestClockOffsetIsASignedDurationOfAtMostADay() {
    assertThat(load(Map.of("klat.test.clock-offset", "250ms"), Map.of()).testClockOffsetMillis())
        .isEqualTo(250);
    AgentConfig negative = load(Map.of(), Map.of("KLAT_TEST_CLOCK_OFFSET", "-2s"));
    assertThat(negative.testClockOffsetMillis()).isEqualTo(-2000);
    assertThat(negative.describe()).contains("test.clock-offset=-2000ms");
    assertThat(load(Map.of("klat.test.clock-offset", "-0"), Map.of()).testClockOffsetMillis())
        .isZero();
    for (String bad : new String[] {"2d", "25h", "--1s", "-", "soon"}) {
      AgentConfig config = load(Map.of("klat.test.clock-offset", bad), Map.of());
      assertThat(config.status()).as(bad).isEqualTo(Status.INVALID);
    }
  }

  @Test
  void systemPropertyBeatsEnvironmentWhichBeatsFile() throws IOException {
    Path file =
        file(
            "klat.service.name=from-file\n"
                + "klat.sampling.probability=0.3\n"
                + "klat.export.queue-size=300\n");
    Map<String, String> env =
        Map.of(
            "KLAT_CONFIG_FILE", file.toString(),
            "KLAT_SERVICE_NAME", "from-env",
            "KLAT_SAMPLING_PROBABILITY", "0.2");
    Map<String, String> sys = Map.of("klat.service.name", "from-sys");

    AgentConfig config = load(sys, env);

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.serviceName()).isEqualTo("from-sys");
    assertThat(config.samplingProbability()).isEqualTo(0.2);
    assertThat(config.exportQueueSize()).isEqualTo(300);
    assertThat(config.configFile()).isEqualTo(file.toString());
    assertThat(captured.text()).isEmpty();
  }

  @Test
  void systemPropertyNamesTheConfigFileOverTheEnvironment() throws IOException {
    Path file = file("klat.service.name=from-file\n");

    AgentConfig config =
        load(
            Map.of("klat.config.file", file.toString()),
            Map.of("KLAT_CONFIG_FILE", dir.resolve("missing.properties").toString()));

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.serviceName()).isEqualTo("from-file");
  }

  @Test
  void environmentNamesMapDotsAndDashesToUnderscores() {
    AgentConfig config =
        load(
            Map.of(),
            Map.of(
                "KLAT_SAMPLING_MAX_PER_SECOND", "5",
                "KLAT_EXPORT_QUEUE_SIZE", "10",
                "KLAT_HEADERS_ENABLED", "false"));

    assertThat(config.samplingMaxPerSecond()).isEqualTo(5.0);
    assertThat(config.exportQueueSize()).isEqualTo(10);
    assertThat(config.headersEnabled()).isFalse();
    assertThat(captured.text()).isEmpty();
    assertThat(ConfigKey.SAMPLING_MAX_PER_SECOND.setting.envName())
        .isEqualTo("KLAT_SAMPLING_MAX_PER_SECOND");
    assertThat(ConfigKey.CONFIG_FILE.setting.envName()).isEqualTo("KLAT_CONFIG_FILE");
  }

  @Test
  void emptyValueCountsAsUnset() {
    AgentConfig config =
        load(
            Map.of("klat.endpoint", "  "),
            Map.of("KLAT_ENDPOINT", "http://collector:4318", "KLAT_SERVICE_NAME", ""));

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.endpoint()).hasToString("http://collector:4318");
    assertThat(config.serviceName()).isEqualTo("kafka-app");
  }

  @Test
  void valuesAreTrimmedAndBooleansIgnoreCase() {
    AgentConfig config =
        load(
            Map.of(
                "klat.enabled", " TRUE ",
                "klat.export.gzip", "False",
                "klat.log.level", "WARN"),
            Map.of());

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.exportGzip()).isFalse();
    assertThat(config.logLevel()).isEqualTo(Level.WARN);
  }

  @Test
  void unknownSystemPropertyIsOneWarningWithSuggestion() {
    AgentConfig config =
        load(Map.of("klat.sampling.probabilty", "0.5", "java.version", "17"), Map.of());

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.samplingProbability()).isEqualTo(0.01);
    assertThat(captured.lines())
        .singleElement()
        .asString()
        .contains(" WARN ")
        .contains("klat.sampling.probabilty")
        .contains("system property")
        .endsWith("did you mean klat.sampling.probability?");
  }

  @Test
  void unknownEnvironmentVariableSuggestsTheEnvironmentName() {
    AgentConfig config =
        load(Map.of(), Map.of("KLAT_ENDPIONT", "http://x:4318", "PATH", "/usr/bin"));

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(captured.lines())
        .singleElement()
        .asString()
        .contains(" WARN ")
        .contains("KLAT_ENDPIONT")
        .endsWith("did you mean KLAT_ENDPOINT?");
  }

  @Test
  void separatorMistakesAreSuggestedEvenBeyondEditDistanceTwo() {
    load(Map.of("klat.sampling.maxPerSecond", "5"), Map.of());

    assertThat(captured.lines())
        .singleElement()
        .asString()
        .endsWith("did you mean klat.sampling.max-per-second?");
  }

  @Test
  void theOldSpellingOfARenamedKeyStillWorksWithOneWarningNamingTheNewKey() throws IOException {
    AgentConfig config = load(Map.of("klat.export.queue.size", "64"), Map.of());

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.exportQueueSize()).isEqualTo(64);
    assertThat(captured.lines())
        .singleElement()
        .asString()
        .contains(" WARN ")
        .endsWith(
            "klat.export.queue.size (system property) is deprecated: use klat.export.queue-size");

    CapturedLog fromFile = new CapturedLog();
    Path file = file("klat.export.queue.size=32\n");
    config = AgentConfig.load(Map.of("klat.config.file", file.toString()), Map.of(), fromFile.log);
    assertThat(config.exportQueueSize()).isEqualTo(32);
    assertThat(fromFile.lines())
        .singleElement()
        .asString()
        .endsWith(
            "klat.export.queue.size (config file "
                + file
                + ") is deprecated: use klat.export.queue-size");
  }

  @Test
  void whereBothSpellingsAreSetTheNewKeyWinsAndTheWarningSaysSo() {
    AgentConfig config =
        load(Map.of("klat.export.queue.size", "64", "klat.export.queue-size", "128"), Map.of());

    assertThat(config.exportQueueSize()).isEqualTo(128);
    assertThat(captured.lines())
        .singleElement()
        .asString()
        .endsWith(
            "klat.export.queue.size (system property) is deprecated: use klat.export.queue-size;"
                + " klat.export.queue-size is set there too and wins");
  }

  @Test
  void aBadValueUnderTheOldSpellingNamesTheNewKeyAndWhereItCameFrom() {
    AgentConfig config = load(Map.of("klat.export.queue.size", "lots"), Map.of());

    assertThat(config.status()).isEqualTo(Status.INVALID);
    assertThat(config.errors())
        .singleElement()
        .asString()
        .contains(
            "\"lots\" for klat.export.queue-size (from system property klat.export.queue.size)")
        .contains("expected an integer > 0");
  }

  @Test
  void unknownKeyFarFromAnyKeyHasNoSuggestion() {
    load(Map.of("klat.frobnicate", "yes"), Map.of("KLAT_OPTS", "x"));

    assertThat(captured.lines(Level.WARN)).hasSize(2);
    assertThat(captured.text()).contains("klat.frobnicate").contains("KLAT_OPTS");
    assertThat(captured.text()).doesNotContain("did you mean");
  }

  @Test
  void unknownKeyInFileIsWarnedAndConfigFileKeyInFileIsIgnored() throws IOException {
    Path file = file("klat.topic.include=orders\nklat.config.file=/elsewhere\n");

    AgentConfig config = load(Map.of("klat.config.file", file.toString()), Map.of());

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.configFile()).isEqualTo(file.toString());
    List<String> warnings = captured.lines(Level.WARN);
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0)).contains("klat.config.file in config file").contains("ignored");
    assertThat(warnings.get(1))
        .contains("klat.topic.include")
        .endsWith("did you mean klat.topics.include?");
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        Arguments.of("klat.enabled", "yes"),
        Arguments.of("klat.enabled", "1"),
        Arguments.of("klat.endpoint", "ftp://collector:4318"),
        Arguments.of("klat.endpoint", "localhost:4318"),
        Arguments.of("klat.endpoint", "http://"),
        Arguments.of("klat.endpoint", "http://collector:4318/otlp?x=1"),
        Arguments.of("klat.endpoint", "http://coll ector:4318"),
        Arguments.of("klat.sampling.probability", "1.5"),
        Arguments.of("klat.sampling.probability", "-0.1"),
        Arguments.of("klat.sampling.probability", "abc"),
        Arguments.of("klat.sampling.probability", "NaN"),
        Arguments.of("klat.sampling.probability", "0.5d"),
        Arguments.of("klat.sampling.max-per-second", "-1"),
        Arguments.of("klat.sampling.max-per-second", "fast"),
        Arguments.of("klat.sampling.max-per-second", "Infinity"),
        Arguments.of("klat.sampling.max-per-second", "1e400"),
        Arguments.of("klat.topics.include", "orders[0-9"),
        Arguments.of("klat.topics.exclude", "(internal"),
        Arguments.of("klat.headers.enabled", "on"),
        Arguments.of("klat.metrics.interval", "50ms"),
        Arguments.of("klat.metrics.interval", "10x"),
        Arguments.of("klat.metrics.interval", "-5s"),
        Arguments.of("klat.metrics.interval", "1.5s"),
        Arguments.of("klat.metrics.interval", "99999999999999999m"),
        Arguments.of("klat.export.queue-size", "0"),
        Arguments.of("klat.export.queue-size", "-1"),
        Arguments.of("klat.export.queue-size", "1.5"),
        Arguments.of("klat.export.queue-size", "99999999999"),
        Arguments.of("klat.export.timeout", "0"),
        Arguments.of("klat.export.timeout", "soon"),
        Arguments.of("klat.export.gzip", "maybe"),
        Arguments.of("klat.log.level", "verbose"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("badValues")
  void badValueIsOneErrorLineAndMakesTheConfigInvalid(String key, String value) {
    AgentConfig config = load(Map.of(key, value), Map.of());

    assertThat(config.status()).isEqualTo(Status.INVALID);
    assertThat(config.active()).isFalse();
    assertThat(config.errors()).hasSize(1);
    assertThat(captured.lines())
        .singleElement()
        .asString()
        .contains(" ERROR ")
        .contains(key)
        .contains("\"" + value + "\"")
        .contains("system property " + key)
        .contains("expected")
        .endsWith("klat will not instrument anything");
  }

  @Test
  void badValueNamesEnvironmentOrFileAsItsSource() throws IOException {
    Path file = file("klat.export.queue-size=lots\n");

    AgentConfig config =
        load(
            Map.of(),
            Map.of("KLAT_SAMPLING_PROBABILITY", "2", "KLAT_CONFIG_FILE", file.toString()));

    assertThat(config.status()).isEqualTo(Status.INVALID);
    List<String> errors = captured.lines(Level.ERROR);
    assertThat(errors).hasSize(2);
    assertThat(errors.get(0))
        .contains("\"2\" for klat.sampling.probability")
        .contains("environment variable KLAT_SAMPLING_PROBABILITY")
        .contains("expected a number from 0 to 1");
    assertThat(errors.get(1))
        .contains("\"lots\" for klat.export.queue-size")
        .contains("config file " + file);
  }

  @Test
  void everyBadValueIsReportedNotOnlyTheFirst() {
    Map<String, String> sys = new HashMap<>();
    sys.put("klat.enabled", "nope");
    sys.put("klat.endpoint", "collector");
    sys.put("klat.metrics.interval", "1ms");

    AgentConfig config = load(sys, Map.of());

    assertThat(config.errors()).hasSize(3);
    assertThat(captured.lines(Level.ERROR)).hasSize(3);
  }

  @Test
  void missingConfigFileIsAnErrorAndInvalid() {
    Path missing = dir.resolve("nope.properties");

    AgentConfig config = load(Map.of(), Map.of("KLAT_CONFIG_FILE", missing.toString()));

    assertThat(config.status()).isEqualTo(Status.INVALID);
    assertThat(captured.lines())
        .singleElement()
        .asString()
        .contains(" ERROR cannot read config file " + missing)
        .contains("environment variable KLAT_CONFIG_FILE")
        .contains("NoSuchFileException")
        .endsWith("klat will not instrument anything");
  }

  @Test
  void unreadableConfigFileIsAnErrorAndInvalid() throws IOException {
    Path notUtf8 = dir.resolve("latin1.properties");
    Files.write(notUtf8, new byte[] {'k', '=', (byte) 0xE9, (byte) 0xFF, '\n'});

    AgentConfig directory = load(Map.of("klat.config.file", dir.toString()), Map.of());
    AgentConfig latin1 = load(Map.of("klat.config.file", notUtf8.toString()), Map.of());

    assertThat(directory.status()).isEqualTo(Status.INVALID);
    assertThat(latin1.status()).isEqualTo(Status.INVALID);
    assertThat(captured.lines(Level.ERROR)).hasSize(2);
  }

  @Test
  void configFileIsReadAsUtf8() throws IOException {
    Path file = file("# comment\nklat.service.name = Zürich-payments\n");

    AgentConfig config = load(Map.of("klat.config.file", file.toString()), Map.of());

    assertThat(config.serviceName()).isEqualTo("Zürich-payments");
  }

  @Test
  void enabledFalseIsDisabledNotAnError() {
    AgentConfig config = load(Map.of("klat.enabled", "FALSE"), Map.of());

    assertThat(config.status()).isEqualTo(Status.DISABLED);
    assertThat(config.active()).isFalse();
    assertThat(config.errors()).isEmpty();
    assertThat(captured.text()).isEmpty();
  }

  @Test
  void invalidTakesPrecedenceOverDisabled() {
    AgentConfig config =
        load(Map.of("klat.enabled", "false", "klat.sampling.probability", "7"), Map.of());

    assertThat(config.enabled()).isFalse();
    assertThat(config.status()).isEqualTo(Status.INVALID);
  }

  @Test
  void durationsAcceptMillisecondsSecondsMinutesAndPlainNumbers() {
    assertThat(intervalOf("500ms")).isEqualTo(500);
    assertThat(intervalOf("10s")).isEqualTo(10_000);
    assertThat(intervalOf("1m")).isEqualTo(60_000);
    assertThat(intervalOf("1h")).isEqualTo(3_600_000);
    assertThat(intervalOf("2500")).isEqualTo(2_500);
    assertThat(intervalOf("100")).isEqualTo(100);
    assertThat(intervalOf("30 S")).isEqualTo(30_000);
    assertThat(load(Map.of("klat.export.timeout", "250ms"), Map.of()).exportTimeoutMillis())
        .isEqualTo(250);
    assertThat(captured.lines(Level.ERROR)).isEmpty();
  }

  private long intervalOf(String value) {
    AgentConfig config = load(Map.of("klat.metrics.interval", value), Map.of());
    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    return config.metricsIntervalMillis();
  }

  @Test
  void serviceNameFallsBackToOtelServiceNameThenKafkaApp() {
    assertThat(load(Map.of(), Map.of("OTEL_SERVICE_NAME", "checkout")).serviceName())
        .isEqualTo("checkout");
    assertThat(
            load(Map.of("klat.service.name", "payments"), Map.of("OTEL_SERVICE_NAME", "checkout"))
                .serviceName())
        .isEqualTo("payments");
    assertThat(load(Map.of(), Map.of("OTEL_SERVICE_NAME", " ")).serviceName())
        .isEqualTo("kafka-app");
  }

  @Test
  void endpointPathIsAPrefixForSignalPaths() {
    AgentConfig config = load(Map.of("klat.endpoint", "https://gw.example.com/otlp/"), Map.of());

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(config.tracesEndpoint()).hasToString("https://gw.example.com/otlp/v1/traces");
    assertThat(config.metricsEndpoint()).hasToString("https://gw.example.com/otlp/v1/metrics");
    assertThat(captured.text()).isEmpty();
  }

  @Test
  void endpointEndingWithSignalPathIsWarned() {
    AgentConfig config = load(Map.of("klat.endpoint", "http://collector:4318/v1/traces"), Map.of());

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
    assertThat(captured.lines()).singleElement().asString().contains(" WARN klat.endpoint=");
  }

  @Test
  void logLevelFromConfigAppliesToTheLinesLoadingPrints() {
    AgentConfig quiet =
        load(Map.of("klat.log.level", "error", "klat.sampling.probabilty", "1"), Map.of());
    assertThat(quiet.logLevel()).isEqualTo(Level.ERROR);
    assertThat(captured.log.level()).isEqualTo(Level.ERROR);
    assertThat(captured.text()).isEmpty();

    AgentConfig off =
        load(Map.of("klat.log.level", "off", "klat.sampling.probability", "2"), Map.of());
    assertThat(off.status()).isEqualTo(Status.INVALID);
    assertThat(captured.text()).isEmpty();
  }

  @Test
  void tailSettingsHaveTheirDefaultsAndAreRead() {
    AgentConfig defaults = load(Map.of(), Map.of());
    assertThat(defaults.tailEnabled()).isTrue();
    assertThat(defaults.tailMaxPerSecond()).isEqualTo(100);
    assertThat(defaults.tailProducerThreshold().nanosFor("t"))
        .isEqualTo(dev.klat.agent.tail.ThresholdSpec.AUTO);

    AgentConfig config =
        load(
            Map.of(
                "klat.tail.enabled", "false",
                "klat.tail.max-per-second", "0",
                "klat.tail.producer-threshold", "250ms,payments=50ms"),
            Map.of("KLAT_TAIL_CONSUMER_THRESHOLD", "2s"));
    assertThat(config.errors()).isEmpty();
    assertThat(config.tailEnabled()).isFalse();
    assertThat(config.tailMaxPerSecond()).isZero();
    assertThat(config.tailProducerThreshold().nanosFor("payments")).isEqualTo(50_000_000L);
    assertThat(config.tailProducerThreshold().nanosFor("orders")).isEqualTo(250_000_000L);
    assertThat(config.tailConsumerThreshold().nanosFor("orders")).isEqualTo(2_000_000_000L);
    assertThat(config.describe()).contains("tail.enabled=false");
  }

  @Test
  void theContractsSpellingOfTheThresholdsIsReadWithAWarning() {
    AgentConfig config = load(Map.of("klat.tail.producer.threshold", "300ms"), Map.of());
    assertThat(config.errors()).isEmpty();
    assertThat(config.tailProducerThreshold().nanosFor("t")).isEqualTo(300_000_000L);
    assertThat(captured.text()).contains("use klat.tail.producer-threshold");
  }

  @Test
  void aBadTailValueNamesTheKeyTheEntryAndWhatIsExpected() {
    AgentConfig config =
        load(
            Map.of("klat.tail.consumer-threshold", "100ms,orders=soon"),
            Map.of("KLAT_TAIL_MAX_PER_SECOND", "-1"));
    assertThat(config.status()).isEqualTo(Status.INVALID);
    assertThat(config.errors()).hasSize(2);
    assertThat(String.join("\n", config.errors()))
        .contains("\"100ms,orders=soon\" for klat.tail.consumer-threshold")
        .contains("entry 2")
        .contains("\"soon\" is not auto or a duration")
        .contains(
            "for klat.tail.max-per-second (from environment variable KLAT_TAIL_MAX_PER_SECOND)")
        .contains("from 0 to 100000");
  }

  @Test
  void describeIsOneLineWithTheMainSettingsAndMasksCredentials() {
    AgentConfig config =
        load(
            Map.of(
                "klat.endpoint", "https://user:secret@collector:4318",
                "klat.sampling.probability", "0.25",
                "klat.headers.enabled", "false",
                "klat.topics.include", "orders.*"),
            Map.of("OTEL_SERVICE_NAME", "checkout"));

    assertThat(config.describe())
        .isEqualTo(
            "status=ACTIVE enabled=true endpoint=https://***@collector:4318 service=checkout"
                + " sampling.probability=0.25 sampling.max-per-second=100"
                + " headers.enabled=false tail.producer-threshold=auto"
                + " tail.consumer-threshold=auto tail.max-per-second=100"
                + " micrometer.enabled=false topics.include=orders.*"
                + " topics.exclude=__.*|_confluent.*|_schemas");
    assertThat(config.describe()).doesNotContain("secret").doesNotContain("\n");
  }

  @Test
  void nullMapsAndNullValuesAreTolerated() {
    Map<String, String> sys = new HashMap<>();
    sys.put("klat.endpoint", null);
    sys.put(null, "x");

    AgentConfig config = AgentConfig.load(sys, null, captured.log);

    assertThat(config.status()).isEqualTo(Status.ACTIVE);
  }

  @Test
  void loadFromSystemReadsSystemProperties() {
    System.setProperty("klat.sampling.probability", "0.5");
    try {
      AgentConfig config = AgentConfig.loadFromSystem(captured.log);
      assertThat(config.samplingProbability()).isEqualTo(0.5);
    } finally {
      System.clearProperty("klat.sampling.probability");
    }
  }

  @Test
  void nothingIsEverWrittenToStandardOutput() throws IOException {
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      AgentLog log = new AgentLog(Level.DEBUG, null, () -> CapturedLog.START_MILLIS);
      Map<String, String> sys = new HashMap<>();
      sys.put("klat.sampling.probabilty", "0.5");
      sys.put("klat.export.queue-size", "none");
      sys.put("klat.log.level", "debug");
      AgentConfig config =
          AgentConfig.load(sys, Map.of("KLAT_CONFIG_FILE", dir.resolve("x").toString()), log);
      log.info(config.describe());
      log.debug("debug");
      log.warnOnce("k", "once");
      log.warnThrottled("k", "throttled");
      log.error("failed", new IllegalStateException("boom"));
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
    assertThat(out.size()).isZero();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("WARN unknown configuration key klat.sampling.probabilty")
        .contains("ERROR invalid value \"none\" for klat.export.queue-size")
        .contains("ERROR cannot read config file")
        .contains("INFO status=INVALID");
  }
}
