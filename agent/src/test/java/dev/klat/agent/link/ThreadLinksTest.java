package dev.klat.agent.link;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.metrics.Counter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The linking rules of section 9 of the latency model, on one thread's links. */
class ThreadLinksTest {

  // Each test on a thread of its own: a thread's links live as long as the thread.
  private static ThreadLinks fresh() throws InterruptedException {
    AtomicReference<ThreadLinks> links = new AtomicReference<>();
    Thread thread = new Thread(() -> links.set(ThreadLinks.current()));
    thread.start();
    thread.join();
    return links.get();
  }

  private static InputLink link(long offset) {
    return new InputLink("in", 0, offset, "g", 1L, offset, 100L + offset);
  }

  private static IterationCursor cursor(ThreadLinks links, Object[] sampled, InputLink[] inputs) {
    return new IterationCursor(links, sampled, inputs, sampled.length);
  }

  private static List<Long> sendLinks(ThreadLinks links) {
    List<Long> offsets = new ArrayList<>();
    int count = links.forSend();
    for (int i = 0; i < Math.min(count, ThreadLinks.MAX_LINKS); i++) {
      offsets.add(links.linked(i).offset);
    }
    return offsets;
  }

  @Test
  void anOutputLinksToTheSampledRecordsTakenSinceThePreviousOutput() throws Exception {
    ThreadLinks links = fresh();
    Object u0 = new Object();
    Object s1 = new Object();
    Object u2 = new Object();
    Object s3 = new Object();
    IterationCursor cursor =
        cursor(links, new Object[] {s1, s3}, new InputLink[] {link(1), link(3)});

    cursor.taken(u0);
    assertThat(sendLinks(links)).isEmpty();
    cursor.taken(s1);
    assertThat(sendLinks(links)).containsExactly(1L);
    // Fan-out: nothing taken since, the same input again.
    assertThat(sendLinks(links)).containsExactly(1L);
    // An unsampled record taken ends the reuse: its output is not linked.
    cursor.taken(u2);
    assertThat(sendLinks(links)).isEmpty();
    assertThat(links.previousCount).isZero();
    cursor.taken(s3);
    cursor.taken(null);
    assertThat(sendLinks(links)).containsExactly(3L);
    assertThat(cursor.remaining()).isZero();
  }

  @Test
  void aBatchGivesOneOutputEveryInputUpToTheBoundAndCountsTheRest() throws Exception {
    ThreadLinks links = fresh();
    int n = ThreadLinks.MAX_LINKS + 4;
    Object[] records = new Object[n];
    InputLink[] inputs = new InputLink[n];
    for (int i = 0; i < n; i++) {
      records[i] = new Object();
      inputs[i] = link(i);
    }
    IterationCursor cursor = cursor(links, records, inputs);
    for (Object record : records) {
      cursor.taken(record);
    }

    assertThat(links.forSend()).isEqualTo(n);
    assertThat(links.linked(0).offset).isZero();
    assertThat(links.linked(ThreadLinks.MAX_LINKS - 1).offset).isEqualTo(ThreadLinks.MAX_LINKS - 1);
  }

  @Test
  void aNewPollStartsAfresh() throws Exception {
    ThreadLinks links = fresh();
    Object s1 = new Object();
    Object s2 = new Object();
    IterationCursor cursor =
        cursor(links, new Object[] {s1, s2}, new InputLink[] {link(1), link(2)});
    cursor.taken(s1);
    assertThat(sendLinks(links)).containsExactly(1L);
    // Taken again after the last send (a framework's second pass): not linked after the poll.
    cursor.taken(s2);
    links.polled(new Object(), link(9));

    links.pollStarted();

    assertThat(links.polledCount()).isZero();
    assertThat(links.takenCount + links.previousCount).isZero();
    assertThat(links.tookUnlinked).isFalse();
    assertThat(sendLinks(links)).isEmpty();
  }

  @Test
  void recordsOtherThanTheExpectedOneAreNotLinked() throws Exception {
    ThreadLinks links = fresh();
    Object s1 = new Object();
    Object s2 = new Object();
    IterationCursor cursor =
        cursor(links, new Object[] {s1, s2}, new InputLink[] {link(1), link(2)});

    // Iterated out of the expected order (another iterable's records): s2 is not the one expected.
    cursor.taken(s2);
    assertThat(links.takenCount).isZero();
    assertThat(links.tookUnlinked).isTrue();
  }

  @Test
  void forwardedLinksKeepTheNewestAndCountWhatWasPushedOut() {
    Counter evicted = new Counter();
    ForwardedLinks forwarded = new ForwardedLinks(3, evicted);
    for (long spanId = 1; spanId <= 5; spanId++) {
      forwarded.put(spanId, link(spanId));
    }
    forwarded.put(5, link(55));
    forwarded.put(0, link(0));

    assertThat(forwarded.get(1)).isNull();
    assertThat(forwarded.get(2)).isNull();
    assertThat(forwarded.get(3).offset).isEqualTo(3);
    assertThat(forwarded.get(5).offset).isEqualTo(55);
    assertThat(forwarded.get(0)).isNull();
    assertThat(forwarded.size()).isEqualTo(3);
    assertThat(evicted.value()).isEqualTo(2);
  }
}
