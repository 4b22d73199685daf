package dev.klat.it.agent;

import dev.klat.kafka.cluster.KafkaCluster;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Takes one follower of a topic's partition 0 out of its ISR for a while, as a broker restart does:
 * once records flow on the topic, stops the broker (a controlled shutdown: it leaves the ISR at
 * once), keeps it down, and starts it again; it rejoins the ISR once it has caught up. With {@code
 * min.insync.replicas} equal to the replication factor, the leader refuses {@code acks=all} writes
 * with {@code NOT_ENOUGH_REPLICAS} the whole time.
 */
final class FollowerRestart implements AutoCloseable {
  private final KafkaCluster cluster;
  private final Admin admin;
  private final TopicPartition partition;
  private final int follower;
  private final Thread thread;
  private volatile boolean stopping;
  private volatile boolean restarted;
  private volatile long downMillis = -1;

  /**
   * @param cluster the cluster
   * @param topic the topic, with a replica on {@code follower} that does not lead partition 0
   * @param follower the broker to stop
   * @param recordsFirst the records partition 0 must hold before the broker stops
   * @param down how long the broker stays stopped
   */
  FollowerRestart(
      KafkaCluster cluster, String topic, int follower, long recordsFirst, Duration down) {
    this.cluster = cluster;
    this.admin = cluster.admin();
    this.partition = new TopicPartition(topic, 0);
    this.follower = follower;
    this.thread = new Thread(() -> run(recordsFirst, down), "follower-restart-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether the broker was stopped and started again. */
  boolean restarted() {
    return restarted;
  }

  /** From the stop's start to the end of the start, in milliseconds; -1 before. */
  long downMillis() {
    return downMillis;
  }

  private void run(long recordsFirst, Duration down) {
    try {
      while (endOffset() < recordsFirst) {
        Thread.sleep(200);
      }
      stopping = true;
      long stoppedAt = System.nanoTime();
      cluster.broker(follower).stop();
      Thread.sleep(down.toMillis());
      cluster.broker(follower).start();
      downMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
      restarted = true;
      System.out.println("broker " + follower + " was down for " + downMillis + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      System.out.println("restart of broker " + follower + " failed: " + e);
    }
  }

  private long endOffset() throws Exception {
    return admin
        .listOffsets(Map.of(partition, OffsetSpec.latest()))
        .partitionResult(partition)
        .get(10, TimeUnit.SECONDS)
        .offset();
  }

  /**
   * Waits for a restart under way to end; one that never began (no records came) is called off. A
   * broker still down is started.
   */
  @Override
  public void close() {
    if (!stopping) {
      thread.interrupt();
    }
    try {
      thread.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!cluster.broker(follower).isRunning()) {
      cluster.broker(follower).start();
    }
    admin.close(Duration.ofSeconds(5));
  }
}
