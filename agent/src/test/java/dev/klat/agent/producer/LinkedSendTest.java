package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.TestStateHolder;
import dev.klat.agent.export.SpanProtos;
import dev.klat.agent.export.TraceIds;
import dev.klat.agent.link.InputLink;
import dev.klat.agent.link.IterationCursor;
import dev.klat.agent.link.ThreadLinks;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.HeaderNames;
import dev.klat.model.TimingHeader;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code send()}'s hook on a thread with linked inputs, and on records that forward headers. */
class LinkedSendTest {

  private static final long INPUT_TRACE_HIGH = 0x1111L;
  private static final long INPUT_TRACE_LOW = 0x2222L;

  /** A producer as the hook reads it. */
  private static final class Producer extends TestStateHolder {
    @SuppressWarnings("unused")
    private final String clientId = "linker";
  }

  private final Producer producer = new Producer();

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  @Test
  void anOutputOfSampledInputsContinuesTheFirstsTraceAndLinksTheOthers() throws Exception {
    TestRuntime.install(0.0, 100.0, TimeSource.SYSTEM);
    InputLink[] inputs = new InputLink[ThreadLinks.MAX_LINKS + 3];
    for (int i = 0; i < inputs.length; i++) {
      inputs[i] = input(i, i == 0 ? "enricher" : null);
    }

    RecordTracker tracker =
        onThread(
            () -> {
              take(inputs);
              ProducerRecord<?, ?> sent =
                  ProducerHooks.onSend(producer, new ProducerRecord<>("out", "v"));
              assertThat(sent.headers().headers(HeaderNames.TIMING)).hasSize(1);
              return SendContext.current().sampled;
            });

    assertThat(tracker.traceIdHigh).isEqualTo(INPUT_TRACE_HIGH);
    assertThat(tracker.traceIdLow).isEqualTo(INPUT_TRACE_LOW + 0);
    assertThat(tracker.parentSpanId).isEqualTo(inputs[0].consumerSpanId);
    Span span =
        SpanProtos.encoded(
            ProducerSpans.acknowledged(AgentRuntime.get(), tracker, null, null, tracker.sendNanos));
    Map<String, AnyValue> attributes = SpanProtos.attributes(span.getAttributesList());
    assertThat(attributes.get("klat.link.topic").getStringValue()).isEqualTo("in");
    assertThat(attributes.get("klat.link.partition").getIntValue()).isEqualTo(3);
    assertThat(attributes.get("klat.link.offset").getIntValue()).isEqualTo(100);
    assertThat(attributes.get("klat.link.group").getStringValue()).isEqualTo("enricher");
    assertThat(attributes.get("klat.link.count").getIntValue()).isEqualTo(inputs.length);
    assertThat(span.getDroppedAttributesCount()).isZero();
    // The other inputs kept, as span links to their consumer spans; the rest only counted.
    assertThat(span.getLinksCount()).isEqualTo(ThreadLinks.MAX_LINKS - 1);
    Span.Link second = span.getLinks(0);
    assertThat(ByteBuffer.wrap(second.getSpanId().toByteArray()).getLong())
        .isEqualTo(inputs[1].consumerSpanId);
    assertThat(ByteBuffer.wrap(second.getTraceId().toByteArray()).getLong(8))
        .isEqualTo(INPUT_TRACE_LOW + 1);
    Map<String, AnyValue> linkAttributes = SpanProtos.attributes(second.getAttributesList());
    assertThat(linkAttributes.get("klat.link.offset").getIntValue()).isEqualTo(101);
    assertThat(linkAttributes).doesNotContainKey("klat.link.group");
  }

  @Test
  void anOutputTheCapRefusesIsUnsampledAndLosesTheTimingHeaderItsInputHad() throws Exception {
    TestRuntime.install(0.0, 0.0, TimeSource.SYSTEM);
    ProducerRecord<String, String> copied = withForwardedHeaders(true);

    ProducerRecord<?, ?> sent =
        onThread(
            () -> {
              take(new InputLink[] {input(0, "g")});
              ProducerRecord<?, ?> out = ProducerHooks.onSend(producer, copied);
              assertThat(SendContext.current().sampled).isNull();
              return out;
            });

    assertThat(sent.headers().lastHeader(HeaderNames.TIMING)).isNull();
    // The application's own traceparent is its own.
    assertThat(sent.headers().headers(HeaderNames.TRACEPARENT)).hasSize(1);
  }

  @Test
  void withHeadersDisabledAnUnsampledOutputKeepsEveryHeaderItCarries() throws Exception {
    // klat.headers.enabled=false promises that the agent never changes a record header.
    TestRuntime.install(TimeSource.SYSTEM, java.util.Map.of("klat.headers.enabled", "false"));
    ProducerRecord<String, String> copied = withForwardedHeaders(false);

    ProducerRecord<?, ?> sent = onThread(() -> ProducerHooks.onSend(producer, copied));

    assertThat(sent).isSameAs(copied);
    assertThat(sent.headers().lastHeader(HeaderNames.TIMING)).isNotNull();
  }

  @Test
  void aForwardedUnsampledContextLosesTheTimingHeaderEvenWhenItsHeadersAreReadOnly()
      throws Exception {
    TestRuntime.install(0.0, 100.0, TimeSource.SYSTEM);
    ProducerRecord<String, String> copied = withForwardedHeaders(false);
    ((org.apache.kafka.common.header.internals.RecordHeaders) copied.headers()).setReadOnly();

    ProducerRecord<?, ?> sent = onThread(() -> ProducerHooks.onSend(producer, copied));

    assertThat(sent).isNotSameAs(copied);
    assertThat(sent.headers().lastHeader(HeaderNames.TIMING)).isNull();
    assertThat(copied.headers().lastHeader(HeaderNames.TIMING)).isNotNull();
    assertThat(sent.headers().headers(HeaderNames.TRACEPARENT)).hasSize(1);
  }

  @Test
  void aForwardedSampledContextGetsFreshHeadersOnceAndNamesTheInputReadInThisJvm()
      throws Exception {
    AgentRuntime runtime = TestRuntime.install(0.0, 100.0, TimeSource.SYSTEM);
    ProducerRecord<String, String> copied = withForwardedHeaders(true);
    long[] upstream = new long[4];
    TraceIds.parseTraceparent(
        copied.headers().lastHeader(HeaderNames.TRACEPARENT).value(), upstream);
    InputLink input = input(7, "streams-app");
    runtime.forwardedLinks.put(upstream[2], input);
    byte[] staleTiming = copied.headers().lastHeader(HeaderNames.TIMING).value();

    RecordTracker tracker =
        onThread(
            () -> {
              ProducerRecord<?, ?> sent = ProducerHooks.onSend(producer, copied);
              assertThat(sent.headers().headers(HeaderNames.TRACEPARENT)).hasSize(1);
              Header[] timing = sent.headers().toArray();
              int timings = 0;
              for (Header header : timing) {
                if (header.key().equals(HeaderNames.TIMING)) {
                  timings++;
                  assertThat(header.value()).isNotEqualTo(staleTiming);
                }
              }
              assertThat(timings).isEqualTo(1);
              return SendContext.current().sampled;
            });

    // The trace and parent forwarded; the span names the input the consumer read with them.
    assertThat(tracker.traceIdHigh).isEqualTo(upstream[0]);
    assertThat(tracker.parentSpanId).isEqualTo(upstream[2]);
    assertThat(tracker.links).containsExactly(input);
    Map<String, AnyValue> attributes =
        SpanProtos.attributes(
            SpanProtos.encoded(
                    ProducerSpans.acknowledged(runtime, tracker, null, null, tracker.sendNanos))
                .getAttributesList());
    assertThat(attributes.get("klat.link.offset").getIntValue()).isEqualTo(107);
    assertThat(attributes.get("klat.link.group").getStringValue()).isEqualTo("streams-app");
  }

  @Test
  void aThreadWithoutLinksSendsAsBefore() throws Exception {
    TestRuntime.install(0.0, 100.0, TimeSource.SYSTEM);
    ProducerRecord<String, String> plain = new ProducerRecord<>("out", "v");

    ProducerRecord<?, ?> sent =
        onThread(
            () -> {
              ProducerRecord<?, ?> out = ProducerHooks.onSend(producer, plain);
              assertThat(SendContext.current().sampled).isNull();
              return out;
            });

    assertThat(sent).isSameAs(plain);
    assertThat(sent.headers().toArray()).isEmpty();
  }

  // A record that copied its input's klat headers, as Kafka Streams forwards them.
  private static ProducerRecord<String, String> withForwardedHeaders(boolean sampled) {
    ProducerRecord<String, String> record = new ProducerRecord<>("out", "v");
    record
        .headers()
        .add(
            HeaderNames.TRACEPARENT,
            TraceIds.traceparentBytes(
                TraceIds.randomNonZeroLong(),
                TraceIds.randomNonZeroLong(),
                TraceIds.randomNonZeroLong(),
                sampled));
    record
        .headers()
        .add(
            HeaderNames.TIMING,
            TimingHeader.encode(System.currentTimeMillis() * 1000L - 5_000, 9L, sampled));
    record.headers().add("app", "x".getBytes(StandardCharsets.US_ASCII));
    return record;
  }

  private static InputLink input(int i, String group) {
    return new InputLink("in", 3, 100 + i, group, INPUT_TRACE_HIGH, INPUT_TRACE_LOW + i, 500 + i);
  }

  // The application took these sampled records from ConsumerRecords, on this thread.
  private static void take(InputLink[] inputs) {
    Object[] records = new Object[inputs.length];
    for (int i = 0; i < inputs.length; i++) {
      records[i] = new Object();
    }
    IterationCursor cursor =
        new IterationCursor(ThreadLinks.current(), records, inputs.clone(), inputs.length);
    for (Object record : records) {
      cursor.taken(record);
    }
  }

  interface Body<T> {
    T run() throws Exception;
  }

  // On a thread of its own: links and send contexts are per thread.
  private static <T> T onThread(Body<T> body) throws Exception {
    AtomicReference<T> result = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.set(body.run());
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    thread.start();
    thread.join();
    if (failure.get() instanceof Exception) {
      throw (Exception) failure.get();
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    return result.get();
  }
}
