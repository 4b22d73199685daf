package dev.klat.kafka.cluster;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;

/**
 * One broker of a {@link KafkaCluster}, as a process that tests can stop, kill and pause.
 *
 * <p>Every broker is a combined KRaft node (broker and controller), so a three-broker cluster keeps
 * its controller quorum when one broker is down.
 */
public interface Broker {

  /** The KRaft node id, from 1. */
  int nodeId();

  /** The address clients connect to (the advertised client listener). */
  InetSocketAddress clientAddress();

  /**
   * Where this broker's {@link Listener#SECOND_CLIENT} listener is advertised.
   *
   * @throws UnsupportedOperationException on a backend without that listener
   */
  default InetSocketAddress secondClientAddress() {
    throw new UnsupportedOperationException("this backend has no second client listener");
  }

  /**
   * The Prometheus JMX exporter endpoint of this broker, {@code http://127.0.0.1:<port>/metrics}.
   */
  URI metricsEndpoint();

  /**
   * The JMX service URL of this broker's platform MBean server, for readers without an exporter.
   */
  String jmxServiceUrl();

  /** This broker's log (everything the broker process printed). */
  Path logFile();

  /** True while the broker process is alive (a paused broker is alive). */
  boolean isRunning();

  /** The operating-system process id, or -1 when it is not running. */
  long pid();

  /** Stops the broker gracefully (SIGTERM, controlled shutdown) and waits for it to exit. */
  void stop();

  /** Kills the broker abruptly (SIGKILL) and waits for it to exit. Data written is kept. */
  void kill();

  /** Freezes the broker process (SIGSTOP): it holds its connections but answers nothing. */
  void pause();

  /** Resumes a paused broker (SIGCONT). */
  void resume();

  /**
   * Starts a stopped or killed broker again on the same ports and data, and waits until the cluster
   * sees it.
   */
  void start();
}
