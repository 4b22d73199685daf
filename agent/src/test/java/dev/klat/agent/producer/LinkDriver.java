package dev.klat.agent.producer;

import dev.klat.agent.TestStateHolder;
import dev.klat.agent.consumer.ConsumerHooks;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.link.InputLink;
import dev.klat.agent.link.ThreadLinks;
import dev.klat.agentcore.weave.StateHolder;
import dev.klat.model.HeaderNames;
import dev.klat.model.TimingHeader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A poll loop run inside {@code LinkWeavingTest}'s loader, where kafka-clients (woven) and the two
 * hook packages are defined, as the agent's helper injector defines them: polls two partitions
 * through the consumer hooks, iterates the real {@code ConsumerRecords} and sends one record per
 * record taken through the producer's hook. Only JDK types cross back to the test.
 */
public final class LinkDriver {

  private LinkDriver() {}

  /** A producer as the hook reads it. */
  private static final class Producer extends TestStateHolder {
    @SuppressWarnings("unused")
    private final String clientId = "linker";
  }

  /**
   * Runs the loop; returns whether the iterator was woven, then per output {@code
   * "offset:unsampled"} or {@code "offset:parent=<input offset>,count=<n>,trace=<same|other>"}.
   */
  public static List<String> run(boolean byTopic) {
    List<String> out = new ArrayList<>();
    Object consumer = new TestStateHolder();
    TopicPartition p0 = new TopicPartition("in", 0);
    TopicPartition p1 = new TopicPartition("in", 1);
    List<ConsumerRecord<String, String>> list0 = new ArrayList<>();
    List<ConsumerRecord<String, String>> list1 = new ArrayList<>();
    for (long offset = 0; offset < 3; offset++) {
      list0.add(record(0, offset, offset == 1));
      list1.add(record(1, 10 + offset, offset == 2));
    }

    TestStateHolder request = new TestStateHolder();
    ConsumerHooks.onFetchRequestCreated(request);
    ConsumerHooks.onFetchResponse(request);
    TestStateHolder completedFetch = new TestStateHolder();
    ConsumerHooks.onCompletedFetchCreated(completedFetch);
    ConsumerHooks.onFetchResponseDone();
    ConsumerHooks.onPollEnter(consumer);
    ConsumerHooks.onRecordsReturned(list0, completedFetch, p0, null);
    ConsumerHooks.onRecordsReturned(list1, completedFetch, p1, null);
    ConsumerHooks.onPollReturn(null, consumer);

    ThreadLinks links = ThreadLinks.current();
    Map<Long, Long> offsetBySpanId = new LinkedHashMap<>();
    for (int i = 0; i < links.polledCount(); i++) {
      InputLink link = links.polledLink(i);
      offsetBySpanId.put(link.consumerSpanId, link.offset);
    }

    // The map's order is not the poll's: partition 1 first.
    Map<TopicPartition, List<ConsumerRecord<String, String>>> map = new LinkedHashMap<>();
    map.put(p1, list1);
    map.put(p0, list0);
    ConsumerRecords<String, String> records = new ConsumerRecords<>(map);
    Iterator<ConsumerRecord<String, String>> iterator =
        byTopic ? records.records("in").iterator() : records.iterator();
    out.add("woven=" + (iterator instanceof StateHolder));
    Producer producer = new Producer();
    while (iterator.hasNext()) {
      ConsumerRecord<String, String> input = iterator.next();
      ProducerHooks.onSend(producer, new ProducerRecord<>("out", "v" + input.offset()));
      RecordTracker sampled = SendContext.current().sampled;
      if (sampled == null) {
        out.add(input.offset() + ":unsampled");
      } else {
        out.add(
            input.offset()
                + ":parent="
                + offsetBySpanId.get(sampled.parentSpanId)
                + ",count="
                + sampled.linkCount
                + ",link="
                + sampled.links[0].topic
                + "-"
                + sampled.links[0].partition
                + "@"
                + sampled.links[0].offset);
      }
    }
    return out;
  }

  private static ConsumerRecord<String, String> record(
      int partition, long offset, boolean sampled) {
    ConsumerRecord<String, String> record = new ConsumerRecord<>("in", partition, offset, "k", "v");
    if (sampled) {
      long micros = System.currentTimeMillis() * 1000L;
      record.headers().add(HeaderNames.TIMING, TimingHeader.encode(micros, 5L, true));
      record
          .headers()
          .add(
              HeaderNames.TRACEPARENT,
              TraceIds.traceparentBytes(
                  TraceIds.randomNonZeroLong(),
                  TraceIds.randomNonZeroLong(),
                  TraceIds.randomNonZeroLong(),
                  true));
    }
    return record;
  }
}
