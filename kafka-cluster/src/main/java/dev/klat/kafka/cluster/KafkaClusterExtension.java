package dev.klat.kafka.cluster;

import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs a {@link KafkaCluster} for a test class (registered on a static
 * field) or for each test (on an instance field), and prints the broker logs when a test fails.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaClusterExtension kafka = KafkaClusterExtension.brokers(3);
 * }</pre>
 *
 * <p>{@link #sharedBroker()} instead hands every test class that registers it the same plain
 * single-broker cluster, started once per test JVM: each broker start costs a JVM for the format
 * step and one for the broker (5 to 20 s on CI's two cores), repeated for every class otherwise.
 */
public final class KafkaClusterExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private static final int LOG_LINES_ON_FAILURE = 200;
  private static final ExtensionContext.Namespace SHARED =
      ExtensionContext.Namespace.create(KafkaClusterExtension.class, "shared-broker");

  private final KafkaClusterSpec.Builder spec;
  private final boolean shared;
  private KafkaCluster cluster;
  private boolean perTest;

  private KafkaClusterExtension(KafkaClusterSpec.Builder spec, boolean shared) {
    this.spec = spec;
    this.shared = shared;
  }

  /** A cluster of {@code brokerCount} brokers with the fixture's defaults. */
  public static KafkaClusterExtension brokers(int brokerCount) {
    return new KafkaClusterExtension(KafkaClusterSpec.brokers(brokerCount), false);
  }

  /**
   * The single broker with the fixture's defaults that every test class of this JVM registering
   * this extension shares: the first class starts it, it stops when the whole JUnit run ends (JUnit
   * closes the root store's values). A class that shares it may only create topics with names no
   * other class uses, and run clients with group, transactional and application ids no other class
   * uses; a class that pauses, stops, restarts or reconfigures a broker, or reads broker-wide
   * counters, needs a cluster of its own ({@link #brokers(int)}). A test that fails on it gets the
   * broker log tail as with a cluster of its own.
   */
  public static KafkaClusterExtension sharedBroker() {
    return new KafkaClusterExtension(KafkaClusterSpec.brokers(1), true);
  }

  /**
   * Adjusts the spec (broker properties, heap, interceptors) before the cluster starts.
   *
   * @throws IllegalStateException on {@link #sharedBroker()}, whose spec other classes rely on
   */
  public KafkaClusterExtension configure(Consumer<KafkaClusterSpec.Builder> customizer) {
    if (shared) {
      throw new IllegalStateException(
          "the shared broker keeps the fixture's defaults: use brokers(1) to configure one");
    }
    customizer.accept(spec);
    return this;
  }

  /**
   * The running cluster.
   *
   * @throws IllegalStateException outside a test of the class that registered the extension
   */
  public KafkaCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the Kafka cluster runs only while a test runs");
    }
    return cluster;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (shared) {
      cluster = sharedCluster(context);
      return;
    }
    cluster = spec.name(context.getRequiredTestClass().getSimpleName()).start();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (shared && cluster == null) {
      cluster = sharedCluster(context);
      return;
    }
    if (cluster == null) {
      perTest = true;
      cluster =
          spec.name(
                  context.getRequiredTestClass().getSimpleName()
                      + "-"
                      + context.getRequiredTestMethod().getName())
              .start();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    // Here rather than in a TestWatcher: watchers run after a per-test cluster is gone.
    if (context.getExecutionException().isPresent() && cluster != null) {
      printLogs(context.getDisplayName());
    }
    if (perTest) {
      closeCluster();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (shared) {
      cluster = null;
      return;
    }
    closeCluster();
  }

  /**
   * The JVM's shared broker, started on first use. JUnit closes it ({@link AutoCloseable} values of
   * the root store) after the last test class; the cluster's shutdown hook kills it should the JVM
   * end otherwise.
   */
  private KafkaCluster sharedCluster(ExtensionContext context) {
    KafkaCluster running =
        context
            .getRoot()
            .getStore(SHARED)
            .getOrComputeIfAbsent(
                KafkaCluster.class, key -> spec.name("shared-broker").start(), KafkaCluster.class);
    // A class before this one stopped it: say so here rather than time out later.
    for (Broker broker : running.brokers()) {
      if (!broker.isRunning()) {
        throw new IllegalStateException(
            "the shared broker "
                + broker.nodeId()
                + " is not running: a class sharing it must not stop it; see "
                + broker.logFile());
      }
    }
    return running;
  }

  private void printLogs(String testName) {
    System.err.println(
        "===== klat: " + testName + " failed; broker files are under " + cluster.workDirectory());
    System.err.println(BrokerLogs.describe(cluster.logTails(LOG_LINES_ON_FAILURE)));
  }

  private void closeCluster() {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }
}
