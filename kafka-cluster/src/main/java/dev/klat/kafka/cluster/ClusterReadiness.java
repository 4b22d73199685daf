package dev.klat.kafka.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

/** Decides when brokers are usable: alive, registered with the controller, and serving metrics. */
final class ClusterReadiness {

  private final Supplier<Admin> admin;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  ClusterReadiness(Supplier<Admin> admin) {
    this.admin = admin;
  }

  /** Waits for the brokers; fails fast when one of them exits. */
  void await(Collection<? extends Broker> brokers, Duration timeout) {
    long deadlineNanos = System.nanoTime() + timeout.toNanos();
    Set<Integer> expected = brokers.stream().map(Broker::nodeId).collect(Collectors.toSet());
    String lastProblem = "not checked yet";
    while (System.nanoTime() < deadlineNanos) {
      for (Broker broker : brokers) {
        if (!broker.isRunning()) {
          throw new IllegalStateException(
              "broker " + broker.nodeId() + " exited while starting; see " + broker.logFile());
        }
      }
      lastProblem = problem(brokers, expected);
      if (lastProblem == null) {
        return;
      }
      sleep(200);
    }
    throw new IllegalStateException(
        "brokers " + expected + " not ready after " + timeout + ": " + lastProblem);
  }

  private String problem(Collection<? extends Broker> brokers, Set<Integer> expected) {
    try {
      Collection<Node> nodes =
          admin
              .get()
              .describeCluster(new DescribeClusterOptions().timeoutMs(3000))
              .nodes()
              .get(5, TimeUnit.SECONDS);
      Set<Integer> registered = nodes.stream().map(Node::id).collect(Collectors.toSet());
      if (!registered.containsAll(expected)) {
        return "registered brokers " + registered + ", waiting for " + expected;
      }
    } catch (ExecutionException | TimeoutException e) {
      return "describeCluster failed: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for brokers", e);
    }
    for (Broker broker : brokers) {
      String problem = metricsProblem(broker.metricsEndpoint());
      if (problem != null) {
        return "broker " + broker.nodeId() + " metrics endpoint: " + problem;
      }
    }
    return null;
  }

  private String metricsProblem(URI endpoint) {
    try {
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(3)).GET().build(),
              HttpResponse.BodyHandlers.discarding());
      return response.statusCode() == 200 ? null : "HTTP " + response.statusCode();
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for metrics", e);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
