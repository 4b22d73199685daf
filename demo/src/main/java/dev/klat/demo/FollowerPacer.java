package dev.klat.demo;

import dev.klat.kafka.cluster.Broker;
import dev.klat.kafka.cluster.KafkaCluster;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;

/**
 * The slow-follower scenario's pacer. A follower that stops answering holds the high watermark, so
 * acks=all waits: the commit segment. Paused 1 s out of every 4 s, it stays in the ISR
 * (replica.lag.time.max.ms is 10 s). The last {@link #PAUSE_FREE_TAIL_MILLIS} of the scenario are
 * pause-free, so that the next scenario's readings do not open on this one's tail. The pacer pauses
 * a follower that does not coordinate the demo group (the consumer's heartbeats and commits would
 * wait for it, which is not the cause this scenario is about), and says which.
 */
final class FollowerPacer {
  // Followers of every demo partition (broker 1 leads them all).
  private static final List<Integer> FOLLOWER_NODE_IDS = Arrays.asList(3, 2);

  // Longer than the time a held batch and those queued behind it take to clear.
  static final long PAUSE_FREE_TAIL_MILLIS = 10_000;

  private final Supplier<KafkaCluster> cluster;
  private final Supplier<Scenario> scenario;
  private final LongSupplier scenarioStartNanos;
  private final long scenarioMillis;
  private final BooleanSupplier stopping;
  private final String group;
  private final PrintStream out;
  private volatile int pausedFollowerId = FOLLOWER_NODE_IDS.get(0);

  FollowerPacer(
      Supplier<KafkaCluster> cluster,
      Supplier<Scenario> scenario,
      LongSupplier scenarioStartNanos,
      long scenarioMillis,
      BooleanSupplier stopping,
      String group,
      PrintStream out) {
    this.cluster = cluster;
    this.scenario = scenario;
    this.scenarioStartNanos = scenarioStartNanos;
    this.scenarioMillis = scenarioMillis;
    this.stopping = stopping;
    this.group = group;
    this.out = out;
  }

  void start() {
    Thread pacer = new Thread(this::pace, "klat-demo-follower");
    pacer.setDaemon(true);
    pacer.start();
  }

  /** Resumes the follower the pacer pauses, so that the cluster closes cleanly. */
  void resumePaused(KafkaCluster running) {
    try {
      running.broker(pausedFollowerId).resume();
    } catch (RuntimeException ignored) {
      // Closing kills it anyway.
    }
  }

  private void pace() {
    boolean paused = false;
    boolean followerChosen = false;
    while (!stopping.getAsBoolean()) {
      long inScenarioMillis =
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - scenarioStartNanos.getAsLong());
      Scenario now = scenario.get();
      boolean wantPaused =
          now == Scenario.SLOW_FOLLOWER && pausedAt(inScenarioMillis, scenarioMillis);
      try {
        if (now != Scenario.SLOW_FOLLOWER) {
          followerChosen = false;
        } else if (!followerChosen && !paused) {
          pausedFollowerId = followerOutsideCoordinator();
          followerChosen = true;
          out.println(
              "slow follower: pausing broker "
                  + pausedFollowerId
                  + " 1 s out of every 4 (it follows every demo partition)");
        }
        KafkaCluster running = cluster.get();
        if (wantPaused != paused && running != null) {
          Broker follower = running.broker(pausedFollowerId);
          if (wantPaused) {
            follower.pause();
          } else {
            follower.resume();
          }
          paused = wantPaused;
        }
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        if (!stopping.getAsBoolean()) {
          out.println(
              "could not "
                  + (wantPaused ? "pause" : "resume")
                  + " broker "
                  + pausedFollowerId
                  + ": "
                  + e);
        }
        paused = wantPaused;
      }
    }
  }

  /**
   * Whether the follower is paused this far into the scenario: 1 s out of every 4 from the second
   * second on, and never in the pause-free tail.
   */
  static boolean pausedAt(long inScenarioMillis, long scenarioMillis) {
    return (inScenarioMillis + 3000) % 4000 < 1000
        && inScenarioMillis < scenarioMillis - PAUSE_FREE_TAIL_MILLIS;
  }

  /** A follower of the demo partitions that is not the demo group's coordinator. */
  private int followerOutsideCoordinator() {
    KafkaCluster running = cluster.get();
    if (running == null) {
      return FOLLOWER_NODE_IDS.get(0);
    }
    try (Admin admin = running.admin()) {
      int coordinatorId =
          admin
              .describeConsumerGroups(Collections.singletonList(group))
              .describedGroups()
              .get(group)
              .get(10, TimeUnit.SECONDS)
              .coordinator()
              .id();
      for (int followerId : FOLLOWER_NODE_IDS) {
        if (followerId != coordinatorId) {
          return followerId;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      out.println("could not find the coordinator of group " + group + ": " + e);
    }
    return FOLLOWER_NODE_IDS.get(0);
  }
}
