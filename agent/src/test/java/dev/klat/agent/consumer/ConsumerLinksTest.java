package dev.klat.agent.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.link.InputLink;
import dev.klat.agent.link.ThreadLinks;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.HeaderNames;
import dev.klat.model.TimingHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What {@code poll()} exit registers for the link: the sampled records with a consumer span. */
class ConsumerLinksTest {

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void aSampledRecordIsLinkableByItsConsumerSpanAndByItsUpstreamSpanId() throws Exception {
    AgentRuntime runtime = TestRuntime.install(TimeSource.SYSTEM);
    long upstreamSpanId = 0x5151L;
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    records.add(new ConsumerRecord<>("in", 2, 40, "k", "v"));
    records.add(stamped(41, true, upstreamSpanId));
    records.add(stamped(42, false, 0x6161L));

    List<Object> seen = new ArrayList<>();
    AtomicReference<Integer> afterNextPoll = new AtomicReference<>();
    Thread poller =
        new Thread(
            () -> {
              poll(records);
              ThreadLinks links = ThreadLinks.current();
              for (int i = 0; i < links.polledCount(); i++) {
                seen.add(links.polledRecord(i));
                seen.add(links.polledLink(i));
              }
              ConsumerHooks.onPollEnter(new TestStateHolder());
              afterNextPoll.set(links.polledCount());
            });
    poller.start();
    poller.join();

    // Only the sampled record, under the span id its consumer span got.
    assertThat(seen).hasSize(2);
    assertThat(seen.get(0)).isSameAs(records.get(1));
    InputLink link = (InputLink) seen.get(1);
    assertThat(link.topic).isEqualTo("in");
    assertThat(link.partition).isEqualTo(2);
    assertThat(link.offset).isEqualTo(41);
    assertThat(link.group).isNull();
    assertThat(link.consumerSpanId).isNotZero();
    assertThat(runtime.forwardedLinks.get(upstreamSpanId)).isSameAs(link);
    assertThat(runtime.forwardedLinks.get(0x6161L)).isNull();
    assertThat(afterNextPoll.get()).isZero();
  }

  private static void poll(List<ConsumerRecord<String, String>> records) {
    TestStateHolder request = new TestStateHolder();
    ConsumerHooks.onFetchRequestCreated(request);
    ConsumerHooks.onFetchResponse(request);
    TestStateHolder completedFetch = new TestStateHolder();
    ConsumerHooks.onCompletedFetchCreated(completedFetch);
    ConsumerHooks.onFetchResponseDone();
    TestStateHolder consumer = new TestStateHolder();
    ConsumerHooks.onPollEnter(consumer);
    ConsumerHooks.onRecordsFetched(completedFetch, new TopicPartition("in", 2), null, records);
    ConsumerHooks.onPollExit(consumer, null);
  }

  private static ConsumerRecord<String, String> stamped(
      long offset, boolean sampled, long upstreamSpanId) {
    ConsumerRecord<String, String> record = new ConsumerRecord<>("in", 2, offset, "k", "v");
    record
        .headers()
        .add(
            HeaderNames.TIMING,
            TimingHeader.encode(System.currentTimeMillis() * 1000L, 5L, sampled));
    record
        .headers()
        .add(HeaderNames.TRACEPARENT, TraceIds.traceparentBytes(7L, 8L, upstreamSpanId, sampled));
    return record;
  }
}
