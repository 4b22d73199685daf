package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpanQueueTest {
  private final ExportCounters counters = new ExportCounters();

  private static SpanRecord span(int i) {
    return new SpanRecord().setTraceId(0xabcdL, i + 1).setSpanId(1000 + i);
  }

  @Test
  void aFullQueueDropsAndCountsInsteadOfWaiting() {
    SpanQueue queue = new SpanQueue(2, counters);
    assertThat(queue.offer(span(0))).isTrue();
    assertThat(queue.offer(span(1))).isTrue();
    assertThat(queue.offer(span(2))).isFalse();
    assertThat(queue.size()).isEqualTo(2);
    assertThat(counters.droppedSpans()).isEqualTo(1);
  }

  @Test
  void drainTakesAtMostMaxAndDropsSpansWithoutValidIds() {
    SpanQueue queue = new SpanQueue(10, counters);
    queue.offer(span(0));
    queue.offer(new SpanRecord());
    queue.offer(span(2));
    queue.offer(span(3));
    List<SpanRecord> out = new ArrayList<>();
    queue.drainTo(out, 2);
    assertThat(out).hasSize(2);
    assertThat(counters.droppedSpans()).isEqualTo(1);
    assertThat(queue.size()).isEqualTo(1);
  }

  @Test
  void closedQueueDropsNewSpansAndDropAllEmptiesIt() {
    SpanQueue queue = new SpanQueue(10, counters);
    queue.offer(span(0));
    queue.close();
    assertThat(queue.offer(span(1))).isFalse();
    queue.dropAll();
    assertThat(queue.size()).isZero();
    assertThat(counters.droppedSpans()).isEqualTo(2);
  }
}
