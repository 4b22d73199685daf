package dev.klat.it.agent;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;

/**
 * Moves the leadership of a topic's partition 0 back and forth between two brokers, as a rolling
 * restart or a leader rebalance does: each move reorders the replicas (no data moves) and elects
 * the preferred leader. A producer learns of the move from its next request to the old leader,
 * which fails with {@code NOT_LEADER_OR_FOLLOWER}, and sends that batch again.
 */
final class LeaderMover implements AutoCloseable {
  private final Admin admin;
  private final TopicPartition partition;
  private final int[] leaders;
  private final int thirdReplica;
  private final Thread thread;
  private volatile boolean stopped;
  private volatile int moves;

  /**
   * @param admin an admin client of the cluster, closed with the mover
   * @param topic the topic, with 3 replicas on brokers 1 to 3
   * @param first the leader it starts from
   * @param second the leader it alternates with
   * @param every the time between two moves
   */
  LeaderMover(Admin admin, String topic, int first, int second, Duration every) {
    this.admin = admin;
    this.partition = new TopicPartition(topic, 0);
    this.leaders = new int[] {first, second};
    this.thirdReplica = 6 - first - second;
    this.thread = new Thread(() -> run(every), "leader-mover-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  /** How many moves completed. */
  int moves() {
    return moves;
  }

  private void run(Duration every) {
    int next = 1;
    while (!stopped) {
      try {
        Thread.sleep(every.toMillis());
        int leader = leaders[next];
        int other = leaders[1 - next];
        admin
            .alterPartitionReassignments(
                Map.of(
                    partition,
                    Optional.of(
                        new NewPartitionReassignment(List.of(leader, other, thirdReplica)))))
            .all()
            .get(10, TimeUnit.SECONDS);
        admin
            .electLeaders(ElectionType.PREFERRED, Set.of(partition))
            .all()
            .get(10, TimeUnit.SECONDS);
        moves++;
        next = 1 - next;
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        // A reassignment still in progress or an election not needed: the next round tries again.
        System.out.println("leader move of " + partition + " failed: " + e);
      }
    }
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
    try {
      thread.join(15_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    admin.close(Duration.ofSeconds(5));
  }
}
