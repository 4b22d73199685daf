package dev.klat.agent.consumer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.link.InputLink;
import dev.klat.agent.link.IterationCursor;
import dev.klat.agent.link.ThreadLinks;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The order in which a {@code ConsumerRecords} iterator hands out the sampled records of the
 * thread's latest poll. The iterator walks the lists of the iterable it came from ({@code
 * ConcatenatedIterable.iterables}: the partitions' record lists, in the map's order, or one topic's
 * for {@code records(String)}), each list in offset order; a sampled record belongs to the list of
 * its partition whose first and last offsets enclose its own. Computed once per iterator, from the
 * lists' ends only: a comparison per list and sampled record, never a walk over the records.
 */
final class RecordOrder {

  private RecordOrder() {}

  /**
   * A cursor over the sampled records of {@code links}' latest poll that iterating {@code
   * iterables} hands out, in that order; null when the iterable has a shape this version does not
   * know (logged once: no link).
   */
  static IterationCursor cursor(ThreadLinks links, Object iterables) {
    if (!(iterables instanceof Iterable)) {
      unsupported(iterables);
      return null;
    }
    int polled = links.polledCount();
    Object[] order = new Object[polled];
    InputLink[] orderLinks = new InputLink[polled];
    int count = 0;
    for (Object element : (Iterable<?>) iterables) {
      if (!(element instanceof List)) {
        unsupported(element);
        return null;
      }
      List<?> records = (List<?>) element;
      int size = records.size();
      if (size == 0) {
        continue;
      }
      Object first = records.get(0);
      Object last = records.get(size - 1);
      if (!(first instanceof ConsumerRecord) || !(last instanceof ConsumerRecord)) {
        unsupported(first);
        return null;
      }
      ConsumerRecord<?, ?> head = (ConsumerRecord<?, ?>) first;
      String topic = head.topic();
      int partition = head.partition();
      long fromOffset = head.offset();
      long toOffset = ((ConsumerRecord<?, ?>) last).offset();
      for (int i = 0; i < polled && count < polled; i++) {
        InputLink link = links.polledLink(i);
        if (link.partition == partition
            && link.offset >= fromOffset
            && link.offset <= toOffset
            && link.topic.equals(topic)) {
          order[count] = links.polledRecord(i);
          orderLinks[count++] = link;
        }
      }
    }
    // A cursor even with nothing expected: its records, taken, end the reuse of an earlier send's
    // links (section 9: an output links to the previous output's inputs only while none was taken).
    return new IterationCursor(links, order, orderLinks, count);
  }

  private static void unsupported(Object what) {
    AgentRuntime runtime = AgentRuntime.get();
    if (runtime != null) {
      runtime.log.warnOnce(
          "consumer-records-shape",
          "klat: ConsumerRecords iterates "
              + (what == null ? "null" : what.getClass().getName())
              + ", a shape this agent does not know: outputs are not linked to polled records");
    }
  }
}
