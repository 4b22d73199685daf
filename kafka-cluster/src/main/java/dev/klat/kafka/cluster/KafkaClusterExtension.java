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
 */
public final class KafkaClusterExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private static final int LOG_LINES_ON_FAILURE = 200;

  private final KafkaClusterSpec.Builder spec;
  private KafkaCluster cluster;
  private boolean perTest;

  private KafkaClusterExtension(KafkaClusterSpec.Builder spec) {
    this.spec = spec;
  }

  /** A cluster of {@code brokerCount} brokers with the fixture's defaults. */
  public static KafkaClusterExtension brokers(int brokerCount) {
    return new KafkaClusterExtension(KafkaClusterSpec.brokers(brokerCount));
  }

  /** Adjusts the spec (broker properties, heap, interceptors) before the cluster starts. */
  public KafkaClusterExtension configure(Consumer<KafkaClusterSpec.Builder> customizer) {
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
    cluster = spec.name(context.getRequiredTestClass().getSimpleName()).start();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
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
    closeCluster();
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
