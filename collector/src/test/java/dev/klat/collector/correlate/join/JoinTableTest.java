package dev.klat.collector.correlate.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class JoinTableTest {
  private static final long WINDOW = 1_000;

  private static ProducerSpan producer(long offset) {
    return Spans.producer(offset, 0, 1, 2);
  }

  private static ConsumerSpan consumer(long offset, String group) {
    return Spans.consumer(offset, group, 3, 4, 5);
  }

  @Test
  void aRecordKeepsItsEntryForTheWindowThenItsLoneSpansCountAsUnjoined() {
    JoinTable table = new JoinTable(WINDOW, 10);
    JoinTable.Entry entry = table.entryFor(Spans.key(1), 0);
    entry.producer = producer(1);
    assertThat(table.entryFor(Spans.key(1), WINDOW - 1)).isSameAs(entry);
    JoinTable.Entry lonely = table.entryFor(Spans.key(2), 10);
    lonely.waiting = new ArrayList<>();
    lonely.waiting.add(consumer(2, "g"));

    table.expire(WINDOW - 1);
    assertThat(table.size()).isEqualTo(2);
    table.expire(WINDOW + 10);
    assertThat(table.size()).isZero();
    assertThat(table.unjoinedProducerSpans()).isEqualTo(1);
    assertThat(table.unjoinedConsumerSpans()).isEqualTo(1);
  }

  @Test
  void aFullTableEvictsItsOldestAndCountsItsUnjoinedSpansAsDropped() {
    JoinTable table = new JoinTable(WINDOW, 2);
    JoinTable.Entry oldest = table.entryFor(Spans.key(1), 0);
    oldest.producer = producer(1);
    oldest.waiting = new ArrayList<>();
    oldest.waiting.add(consumer(1, "late"));
    table.entryFor(Spans.key(2), 1);
    assertThat(table.saturated(2)).as("full of records younger than half the window").isTrue();
    assertThat(table.saturated(WINDOW / 2)).isFalse();

    table.entryFor(Spans.key(3), 2);
    assertThat(table.evicted()).isEqualTo(1);
    assertThat(table.droppedSpans()).isEqualTo(2);
    assertThat(table.size()).isEqualTo(2);
  }

  @Test
  void anEntryKnowsWhichGroupsJoinedOrWait() {
    JoinTable.Entry entry = new JoinTable.Entry(0);
    entry.joinedGroups = new ArrayList<>();
    entry.joinedGroups.add("a");
    entry.waiting = new ArrayList<>();
    entry.waiting.add(consumer(1, "b"));
    assertThat(entry.hasGroup("a")).isTrue();
    assertThat(entry.hasGroup("b")).isTrue();
    assertThat(entry.hasGroup("c")).isFalse();
  }

  @Test
  void recordsOf64KbTopicsStayUnderTheByteBudgetTheOldestLeavingFirst() {
    long budget = 1 << 20;
    JoinTable table = new JoinTable(WINDOW, 500_000, budget);
    String padding = "t".repeat(64 * 1024 - 8);
    for (int i = 0; i < 100; i++) {
      RecordKey key = new RecordKey(String.format("%08d", i) + padding, 0, i);
      JoinTable.Entry entry = table.entryFor(key, i);
      entry.producer = producer(i);
      table.added(entry, JoinTable.producerBytes(entry.producer));
      assertThat(table.estimatedBytes()).isLessThanOrEqualTo(budget);
    }
    // A topic's characters alone: the estimate holds at least what the table holds.
    assertThat((long) table.size() * 64 * 1024).isLessThanOrEqualTo(table.estimatedBytes());
    assertThat(table.size()).isBetween(10, 16);
    assertThat(table.evictedForBytes()).isEqualTo(100 - table.size());
    assertThat(table.droppedSpans()).isEqualTo(100 - table.size());
    assertThat(table.entryFor(new RecordKey("00000099" + padding, 0, 99), 100).producer)
        .isNotNull();
  }
}
