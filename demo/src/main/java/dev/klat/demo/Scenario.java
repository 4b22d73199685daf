package dev.klat.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The demo's scenarios, each a known cause of tail latency, and the segment it should drive. The
 * orchestrator writes the one in force to a file; the demo applications read it twice a second.
 */
enum Scenario {
  STEADY("steady", "steady traffic", null, null),
  LINGER_BURST("linger-burst", "a producer lingering 500 ms", "produce", "produce:linger\\.ms"),
  // The batch waiting for the paused follower is in commit. Behind it the producer backs up: a
  // broker reads one request per connection at a time, so the next batches wait in publish, and
  // once max.in.flight.requests.per.connection are waiting, in the accumulator (produce). The
  // slowest records are those queued behind, so publish, sometimes produce, leads the tail; the
  // leader's probe names the follower whose fetch ended the wait, in publish for the records held
  // behind, in commit for the batch itself: commit led in a run with another build on the machine,
  // the batches' own waits as long as the holds behind them (tail means 271 to 331 ms each); in
  // produce for batches that waited for a request slot those held requests took (tail means of
  // produce 530 to 670 ms in two CI runs, where the slot wait had been put on max.in.flight).
  SLOW_FOLLOWER(
      "slow-follower",
      "a follower paused 1 s out of every 4",
      "publish",
      "(produce|publish|commit):broker_" + Scenario.PAUSED_FOLLOWER + "_follower_fetch"),
  FETCH_WAIT(
      "fetch-wait", "a consumer waiting for 1 MiB fetches", "fetch", "fetch:fetch\\.min\\.bytes"),
  SLOW_CONSUMER(
      "slow-consumer", "a consumer sleeping 200 ms after each poll", "catch-up", "catch-up:"),
  // The pipeline's last group sleeps: its records wait in the second topic, so the pipeline's tail
  // is hop 2's catch-up. The demo-app table reads the first topic and is not the point here.
  SLOW_LAST_HOP(
      "slow-last-hop",
      "the pipeline's last consumer (" + Scenario.LAST_GROUP + ") sleeping 200 ms after each poll",
      null,
      null,
      "hop 2 (" + Scenario.SECOND_TOPIC + " / " + Scenario.LAST_GROUP + "): catch-up");

  /** Stands in an expected finding for the node id of the follower the demo pauses. */
  static final String PAUSED_FOLLOWER = "{paused}";

  /** The demo pipeline: its second topic and its last consumer group. */
  static final String SECOND_TOPIC = "demo-orders-enriched";

  static final String LAST_GROUP = "demo-billing";

  final String id;
  final String description;

  /** The segment this scenario should make the largest in the p99 tail; null for none. */
  final String expectedSegment;

  /**
   * How the live table's top finding ({@code segment:knob:share}) for this scenario starts, a
   * regular expression; null for none.
   */
  final String expectedFinding;

  /**
   * How the demo's pipeline line names its tail late in this scenario ({@code hop N (topic /
   * group): segment}); null for none expected.
   */
  final String expectedPipelineTail;

  Scenario(String id, String description, String expectedSegment, String expectedFinding) {
    this(id, description, expectedSegment, expectedFinding, null);
  }

  Scenario(
      String id,
      String description,
      String expectedSegment,
      String expectedFinding,
      String expectedPipelineTail) {
    this.id = id;
    this.description = description;
    this.expectedSegment = expectedSegment;
    this.expectedFinding = expectedFinding;
    this.expectedPipelineTail = expectedPipelineTail;
  }

  /** How the top finding starts, with the paused follower's node id filled in; null for none. */
  String expectedFinding(int pausedFollowerId) {
    return expectedFinding == null
        ? null
        : expectedFinding.replace(PAUSED_FOLLOWER, Integer.toString(pausedFollowerId));
  }

  static Scenario byId(String id) {
    for (Scenario scenario : values()) {
      if (scenario.id.equals(id.trim())) {
        return scenario;
      }
    }
    throw new IllegalArgumentException("no scenario " + id);
  }

  /** Writes the scenario in force, atomically, so that a reader never sees half a name. */
  void writeTo(Path file) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(temporary, id.getBytes(StandardCharsets.UTF_8));
    Files.move(
        temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The scenario in the file, or {@code fallback} when the file is missing or unreadable. */
  static Scenario readFrom(Path file, Scenario fallback) {
    try {
      return byId(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return fallback;
    } catch (IOException | IllegalArgumentException e) {
      return fallback;
    }
  }
}
