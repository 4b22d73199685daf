package dev.klat.agent.producer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.TestRuntime;
import dev.klat.agent.export.SpanRecord;
import dev.klat.agent.export.TestSpans;
import dev.klat.agentcore.clock.TimeSource;
import dev.klat.model.MetricDef;
import dev.klat.model.SpanAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The spans a transactional producer holds until its transaction ends: released with C at the
 * commit, marked aborted at the abort, bounded, and let go at close, every span exactly once.
 */
class TransactionSpansTest {

  private static final long MS = 1_000_000L;
  private static final long EPOCH_BASE = 1_800_000_000_000_000_000L;

  private long nowNanos;
  private final TimeSource clock =
      new TimeSource() {
        @Override
        public long epochNanos() {
          return EPOCH_BASE + nowNanos;
        }

        @Override
        public long nanoTime() {
          return nowNanos;
        }
      };
  private AgentRuntime runtime;
  private TransactionSpans spans;

  @BeforeEach
  void install() {
    runtime = TestRuntime.install(clock);
    spans = new TransactionSpans(runtime.metrics());
  }

  @AfterEach
  void uninstall() {
    TestRuntime.uninstall();
  }

  private static SpanRecord acknowledgedSpan() {
    return new SpanRecord().setSpanId(1L).setTraceId(1L, 2L);
  }

  private long unpaired(String reason) {
    return runtime.metrics().counter(MetricDef.AGENT_TRANSACTION_SPANS_UNPAIRED, reason).value();
  }

  @Test
  void heldSpansLeaveAtTheCommitWithItsTime() {
    List<SpanRecord> sent = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      SpanRecord span = acknowledgedSpan();
      sent.add(span);
      spans.exportAtEnd(runtime, span, CompletableFuture.completedFuture(null));
    }
    assertThat(spans.heldCount()).isEqualTo(3);
    for (SpanRecord span : sent) {
      assertThat(TestSpans.longValue(span, SpanAttributes.TXN_COMMIT_TIME)).isNull();
    }

    spans.committed(runtime, 500 * MS);

    assertThat(spans.heldCount()).isZero();
    for (SpanRecord span : sent) {
      assertThat(TestSpans.longValue(span, SpanAttributes.TXN_COMMIT_TIME))
          .isEqualTo(EPOCH_BASE + 500 * MS);
      assertThat(span.statusError()).isFalse();
    }
    // The next transaction starts empty: a second commit releases nothing again.
    SpanRecord next = acknowledgedSpan();
    spans.exportAtEnd(runtime, next, null);
    spans.committed(runtime, 900 * MS);
    assertThat(TestSpans.longValue(next, SpanAttributes.TXN_COMMIT_TIME))
        .isEqualTo(EPOCH_BASE + 900 * MS);
    assertThat(TestSpans.longValue(sent.get(0), SpanAttributes.TXN_COMMIT_TIME))
        .isEqualTo(EPOCH_BASE + 500 * MS);
  }

  @Test
  void anAbortMarksTheHeldSpansAbortedWithoutACommitTime() {
    SpanRecord span = acknowledgedSpan();
    spans.exportAtEnd(runtime, span, null);

    spans.aborted(runtime);

    assertThat(spans.heldCount()).isZero();
    assertThat(span.statusError()).isTrue();
    assertThat(TestSpans.stringValue(span, SpanAttributes.ERROR_TYPE))
        .isEqualTo("transaction-aborted");
    assertThat(TestSpans.longValue(span, SpanAttributes.TXN_COMMIT_TIME)).isNull();
  }

  @Test
  void aFailedSendLeavesAtOnceAndABatchTheAbortFailedIsMarkedAborted() {
    SpanRecord expired = acknowledgedSpan().setError("expired");
    expired.put(SpanAttributes.ERROR_TYPE, "org.apache.kafka.common.errors.TimeoutException");
    CompletableFuture<Object> timedOut = new CompletableFuture<>();
    timedOut.completeExceptionally(new org.apache.kafka.common.errors.TimeoutException("x"));
    spans.exportAtEnd(runtime, expired, timedOut);

    SpanRecord abortedBatch = acknowledgedSpan().setError("aborted");
    CompletableFuture<Object> aborted = new CompletableFuture<>();
    aborted.completeExceptionally(new TransactionAbortedException("aborted"));
    spans.exportAtEnd(runtime, abortedBatch, aborted);

    assertThat(spans.heldCount()).isZero();
    assertThat(TestSpans.stringValue(expired, SpanAttributes.ERROR_TYPE))
        .isEqualTo("org.apache.kafka.common.errors.TimeoutException");
    assertThat(TestSpans.stringValue(abortedBatch, SpanAttributes.ERROR_TYPE))
        .isEqualTo("transaction-aborted");
  }

  @Test
  void beyondTheBoundSpansLeaveAtOnceWithoutCommitTimeAndAreCounted() {
    List<SpanRecord> sent = new ArrayList<>();
    for (int i = 0; i < TransactionSpans.MAX_PENDING + 5; i++) {
      SpanRecord span = acknowledgedSpan();
      sent.add(span);
      spans.exportAtEnd(runtime, span, null);
    }
    assertThat(spans.heldCount()).isEqualTo(TransactionSpans.MAX_PENDING);
    assertThat(unpaired("overflow")).isEqualTo(5);

    spans.committed(runtime, 10 * MS);

    int withCommitTime = 0;
    for (SpanRecord span : sent) {
      if (TestSpans.longValue(span, SpanAttributes.TXN_COMMIT_TIME) != null) {
        withCommitTime++;
      }
    }
    assertThat(withCommitTime).isEqualTo(TransactionSpans.MAX_PENDING);
    // The first ones were held; the last five overflowed.
    assertThat(TestSpans.longValue(sent.get(sent.size() - 1), SpanAttributes.TXN_COMMIT_TIME))
        .isNull();
    assertThat(TestSpans.longValue(sent.get(0), SpanAttributes.TXN_COMMIT_TIME)).isNotNull();
  }

  @Test
  void aCloseLetsTheHeldSpansAndLaterOnesGoUnpaired() {
    SpanRecord held = acknowledgedSpan();
    spans.exportAtEnd(runtime, held, null);

    spans.closed(runtime);
    SpanRecord late = acknowledgedSpan();
    spans.exportAtEnd(runtime, late, null);

    assertThat(spans.heldCount()).isZero();
    assertThat(unpaired("closed")).isEqualTo(2);
    assertThat(held.statusError()).isFalse();
    assertThat(TestSpans.longValue(held, SpanAttributes.TXN_COMMIT_TIME)).isNull();
  }

  @Test
  void spansHeldByManyThreadsAreEachReleasedOnce() throws Exception {
    int threads = 4;
    int perThread = 200;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    List<SpanRecord> sent = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<SpanRecord> own = new ArrayList<>();
      for (int i = 0; i < perThread; i++) {
        own.add(acknowledgedSpan());
      }
      sent.addAll(own);
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (SpanRecord span : own) {
                  spans.exportAtEnd(runtime, span, null);
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(spans.heldCount()).isEqualTo(threads * perThread);

    spans.committed(runtime, 7 * MS);

    assertThat(spans.heldCount()).isZero();
    assertThat(sent)
        .allSatisfy(
            span ->
                assertThat(TestSpans.longValue(span, SpanAttributes.TXN_COMMIT_TIME))
                    .isEqualTo(EPOCH_BASE + 7 * MS));
  }
}
