package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PartitionFetchHistoryTest {

  private final PartitionFetchHistory history = new PartitionFetchHistory();

  @Test
  void aRecordAtOrAboveThePreviousResponsesHighWatermarkWasUncommittedWhenItArrived() {
    history.note(new FetchStamp(100L, 200L, true), 5L);
    history.note(new FetchStamp(201L, 900L, true), 8L);

    assertThat(history.uncommittedAtNanos(5L)).isEqualTo(200L);
    assertThat(history.uncommittedAtNanos(7L)).isEqualTo(200L);
    // Committed before that response was built: nothing bounds its commit from below.
    assertThat(history.uncommittedAtNanos(4L)).isZero();
  }

  @Test
  void theFirstResponseOfAPartitionHasNothingBeforeIt() {
    history.note(new FetchStamp(100L, 200L, true), 5L);
    assertThat(history.uncommittedAtNanos(5L)).isZero();
  }

  @Test
  void listsOfOneResponseKeepTheResponseBeforeIt() {
    FetchStamp second = new FetchStamp(201L, 900L, true);
    history.note(new FetchStamp(100L, 200L, true), 5L);
    history.note(second, 8L);
    // max.poll.records handed the second response out over two polls.
    history.note(second, 8L);
    assertThat(history.uncommittedAtNanos(6L)).isEqualTo(200L);
  }

  @Test
  void aResponseReadLateOrWithoutAHighWatermarkIsNoEvidence() {
    history.note(new FetchStamp(100L, 200L, false), 5L);
    history.note(new FetchStamp(201L, 900L, true), 8L);
    assertThat(history.uncommittedAtNanos(6L)).as("read late").isZero();

    history.note(new FetchStamp(901L, 950L, true), -1L);
    history.note(new FetchStamp(951L, 990L, true), 9L);
    assertThat(history.uncommittedAtNanos(8L)).as("no high watermark").isZero();
  }

  @Test
  void aListWithoutAStampEndsTheEvidence() {
    history.note(new FetchStamp(100L, 200L, true), 5L);
    history.note(null, 8L);
    history.note(new FetchStamp(201L, 900L, true), 9L);
    assertThat(history.uncommittedAtNanos(8L)).isZero();
  }
}
