package dev.klat.collector.scale.join;

import dev.klat.collector.SpanTopicSettings;
import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.join.Correlator;
import dev.klat.collector.correlate.join.JoinedBreakdown;
import dev.klat.collector.receive.OtlpIngest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The join role (docs/scale-out.md): a member of a consumer group reading the span and metrics
 * topics, joining the spans of the partitions it owns and counting the breakdowns.
 *
 * <p>Nothing is lost when a member dies and nothing is counted twice when another reads its
 * partitions again: for each span partition the member commits the first offset it read within the
 * join window (a span read since may still wait for a partner, possibly another group's), with a
 * {@link ReplayMarker} naming the offset below which every join has been counted. A breakdown is
 * counted only after the commit that places its completing span below that marker, so a member that
 * dies before the commit leaves it to the next owner, which reads the partition again from the
 * committed offset and counts only the joins its marker does not cover.
 */
public final class JoinMember implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(JoinMember.class.getName());
  private static final long COMMIT_INTERVAL_NANOS = 1_000_000_000L;
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

  /**
   * How the member behaves.
   *
   * @param topics where the spans are
   * @param sessionTimeoutMs how long the group waits for a silent member before handing its
   *     partitions over
   * @param joinWindowNanos the correlator's join window
   * @param metricsStaleNanos an agent whose metrics are silent this long is no longer tracked for a
   *     hand-over
   * @param maxHeldBreakdowns breakdowns that may wait for a commit at once; beyond it (commits
   *     failing for long) they are counted at once, at the risk of being counted again
   */
  public record Settings(
      SpanTopicSettings topics,
      int sessionTimeoutMs,
      long joinWindowNanos,
      int maxHeldBreakdowns,
      long metricsStaleNanos) {}

  private final Settings settings;
  private final OtlpIngest ingest;
  private final AgentMetrics agentMetrics;
  private final Consumer<JoinedBreakdown> counted;
  private final LongSupplier nanoTime;
  private final Correlator correlator;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  // Confined to the member's thread, as the consumer is.
  private final MetricPartitions metrics;
  private volatile boolean running = true;
  // Why the member stopped reading while it should run; null while it reads.
  private volatile String stoppedReading;

  // Guarded by itself; the correlator's sink reaches it from any thread, under the correlator's
  // lock, so this member never calls the correlator while holding it.
  private final Map<Integer, PartitionProgress> owned = new HashMap<>();
  private final AtomicLong spanRecordsRead = new AtomicLong();
  private final AtomicLong spanRecordsMalformed = new AtomicLong();
  private final AtomicLong breakdownsCounted = new AtomicLong();
  private final AtomicLong breakdownsReplayed = new AtomicLong();
  private final AtomicLong breakdownsHandedOver = new AtomicLong();
  private final AtomicLong breakdownsCountedUncommitted = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong commitsFailed = new AtomicLong();
  private volatile long lastCommitNanos;
  private int heldBreakdowns;

  /**
   * @param settings the topics and bounds
   * @param ingest decodes the topics' OTLP requests into the join and the agent metrics
   * @param agentMetrics the agent metrics, handed over with their partitions
   * @param correlator the join, whose sink hands every breakdown to {@link #onBreakdown}
   * @param counted receives every breakdown once it counts (on the member's thread)
   * @param nanoTime the monotonic clock
   */
  public JoinMember(
      Settings settings,
      OtlpIngest ingest,
      AgentMetrics agentMetrics,
      Correlator correlator,
      Consumer<JoinedBreakdown> counted,
      LongSupplier nanoTime) {
    this.settings = settings;
    this.ingest = ingest;
    this.agentMetrics = agentMetrics;
    this.correlator = correlator;
    this.counted = counted;
    this.nanoTime = nanoTime;
    this.lastCommitNanos = nanoTime.getAsLong();
    this.consumer = new KafkaConsumer<>(consumerProperties(settings));
    this.metrics = new MetricPartitions(ingest, agentMetrics, settings.metricsStaleNanos());
    this.thread = new Thread(this::run, "klat-join-member");
    this.thread.setDaemon(true);
  }

  private static Properties consumerProperties(Settings settings) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.topics().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, settings.topics().group());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // A new group reads what the ingest role wrote before it started.
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // Sticky and cooperative: a member joining or leaving moves only the partitions it must, and
    // the others keep their joins in progress.
    p.put(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(settings.sessionTimeoutMs()));
    p.put(
        ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
        Integer.toString(Math.max(500, settings.sessionTimeoutMs() / 4)));
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "klat-join-member");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return settings.topics().client().over(p, "the join member");
  }

  /**
   * Why this member no longer reads its partitions, or null while it does: a member whose loop died
   * would hold its partitions in the group (its consumer's heartbeat thread goes on) and count
   * nothing, so {@code /healthz} says so.
   */
  public String problem() {
    return stoppedReading;
  }

  /** Joins the group and starts reading. */
  public void start() {
    thread.start();
  }

  private void run() {
    try {
      consumer.subscribe(
          List.of(settings.topics().spansTopic(), settings.topics().metricsTopic()),
          new Rebalance());
      while (running) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
        long now = nanoTime.getAsLong();
        for (ConsumerRecord<byte[], byte[]> record : records) {
          if (record.topic().equals(settings.topics().spansTopic())) {
            readSpans(record, now);
          } else {
            metrics.read(record, now);
          }
        }
        if (now - lastCommitNanos >= COMMIT_INTERVAL_NANOS) {
          commit(new ArrayList<>(ownedPartitions()), true);
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      stoppedReading = "the join member stopped reading the span topic: " + e;
      LOG.log(Level.SEVERE, "the join member stopped reading the span topic", e);
    } finally {
      try {
        if (running) {
          consumer.close(Duration.ZERO);
        } else {
          commit(new ArrayList<>(ownedPartitions()), true);
          consumer.close(Duration.ofSeconds(5));
        }
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "closing the join member's consumer", e);
      }
    }
  }

  private void readSpans(ConsumerRecord<byte[], byte[]> record, long nowNanos) {
    spanRecordsRead.incrementAndGet();
    synchronized (owned) {
      PartitionProgress progress = owned.get(record.partition());
      if (progress == null) {
        return; // revoked while this batch was in flight
      }
      progress.read(record.offset(), nowNanos);
    }
    String error =
        record.value() == null
            ? "no value"
            : ingest.tracesFrom(record.value(), SpanSource.of(record.partition(), record.offset()));
    if (error != null && spanRecordsMalformed.getAndIncrement() == 0) {
      warnMalformed(record, "trace", error, "spanRecordsMalformed");
    }
  }

  static void warnMalformed(
      ConsumerRecord<byte[], byte[]> record, String request, String error, String counter) {
    LOG.warning(
        String.format(
            "%s-%d@%d is not an OTLP protobuf %s request (%s): skipped; this and later ones"
                + " are counted in /api/stats as %s",
            record.topic(), record.partition(), record.offset(), request, error, counter));
  }

  private Collection<Integer> ownedPartitions() {
    synchronized (owned) {
      return new ArrayList<>(owned.keySet());
    }
  }

  /**
   * Commits the span partitions given (and the metric partitions' positions), then counts the
   * breakdowns the commit marked. Called on the member's thread only.
   */
  private void commit(Collection<Integer> spanPartitions, boolean metrics) {
    // The windows that are over end first: a tail span older than the window becomes its
    // one-sided breakdown now (section 8), before this commit can mark the span as read. Outside
    // the member's lock, as below.
    correlator.expire();
    long now = nanoTime.getAsLong();
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    Map<Integer, Long> joinedBelow = new HashMap<>();
    for (int partition : spanPartitions) {
      // Outside the member's lock: the correlator's lock comes first (see the field comment).
      long waiting =
          correlator.oldestWaitingSource(
              s -> SpanSource.partition(s) == partition ? SpanSource.offset(s) : -1);
      synchronized (owned) {
        PartitionProgress progress = owned.get(partition);
        if (progress == null || progress.nextOffset() < 0) {
          continue;
        }
        long below = Math.min(progress.nextOffset(), waiting);
        // Never move the marker back: joins below the previous owner's marker stay counted.
        below = Math.max(below, progress.replayBelowOffset());
        joinedBelow.put(partition, below);
        offsets.put(
            new TopicPartition(settings.topics().spansTopic(), partition),
            new OffsetAndMetadata(
                progress.commitOffset(now, settings.joinWindowNanos(), below),
                ReplayMarker.format(below)));
      }
    }
    if (metrics) {
      for (TopicPartition tp : consumer.assignment()) {
        if (tp.topic().equals(settings.topics().metricsTopic())) {
          offsets.put(tp, this.metrics.commit(tp.partition(), consumer.position(tp), now));
        }
      }
    }
    if (offsets.isEmpty()) {
      lastCommitNanos = now;
      return;
    }
    try {
      consumer.commitSync(offsets);
      commits.incrementAndGet();
    } catch (KafkaException e) {
      if (commitsFailed.getAndIncrement() == 0) {
        LOG.log(Level.WARNING, "committing the span topic's offsets failed; will retry", e);
      }
      return;
    }
    lastCommitNanos = now;
    List<JoinedBreakdown> release = new ArrayList<>();
    synchronized (owned) {
      for (Map.Entry<Integer, Long> e : joinedBelow.entrySet()) {
        PartitionProgress progress = owned.get(e.getKey());
        if (progress != null) {
          List<JoinedBreakdown> out = progress.release(e.getValue());
          heldBreakdowns -= out.size();
          release.addAll(out);
        }
      }
    }
    for (JoinedBreakdown b : release) {
      count(b);
    }
  }

  private void count(JoinedBreakdown b) {
    breakdownsCounted.incrementAndGet();
    counted.accept(b);
  }

  /**
   * The member's correlator's sink ({@link Correlator.SourcedSink}): holds a breakdown until the
   * commit that marks its completing span, drops one the previous owner counted already or whose
   * partition went to another member.
   */
  public void onBreakdown(JoinedBreakdown breakdown, long source) {
    if (source == Correlator.NO_SOURCE) {
      count(breakdown);
      return;
    }
    int partition = SpanSource.partition(source);
    long offset = SpanSource.offset(source);
    synchronized (owned) {
      PartitionProgress progress = owned.get(partition);
      if (progress == null) {
        // The partition went to another member, which reads it again and counts this join.
        breakdownsHandedOver.incrementAndGet();
        return;
      }
      if (offset < progress.replayBelowOffset()) {
        breakdownsReplayed.incrementAndGet();
        return;
      }
      if (heldBreakdowns < settings.maxHeldBreakdowns()) {
        progress.hold(breakdown, offset);
        heldBreakdowns++;
        return;
      }
    }
    breakdownsCountedUncommitted.incrementAndGet();
    count(breakdown);
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      List<Integer> spans = spanPartitions(partitions);
      commit(spans, true);
      forget(partitions, spans);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      forget(partitions, spanPartitions(partitions));
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (partitions.isEmpty()) {
        return;
      }
      Map<TopicPartition, OffsetAndMetadata> committed =
          consumer.committed(new HashSet<>(partitions));
      long nowEpochNanos = System.currentTimeMillis() * 1_000_000L;
      synchronized (owned) {
        for (TopicPartition tp : partitions) {
          OffsetAndMetadata c = committed.get(tp);
          if (tp.topic().equals(settings.topics().spansTopic())) {
            owned.put(
                tp.partition(),
                new PartitionProgress(c == null ? -1 : ReplayMarker.parse(c.metadata())));
          } else {
            metrics.assigned(tp.partition(), c, nowEpochNanos);
          }
        }
      }
    }

    private List<Integer> spanPartitions(Collection<TopicPartition> partitions) {
      List<Integer> out = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        if (tp.topic().equals(settings.topics().spansTopic())) {
          out.add(tp.partition());
        }
      }
      return out;
    }

    private void forget(Collection<TopicPartition> partitions, List<Integer> spans) {
      synchronized (owned) {
        for (int p : spans) {
          PartitionProgress progress = owned.remove(p);
          if (progress != null) {
            heldBreakdowns -= progress.held();
            breakdownsHandedOver.addAndGet(progress.held());
          }
        }
      }
      for (TopicPartition tp : partitions) {
        if (tp.topic().equals(settings.topics().metricsTopic())) {
          metrics.revoked(tp.partition());
        }
      }
    }
  }

  /** The counts since start. */
  public JoinMemberStats stats() {
    int partitions;
    synchronized (owned) {
      partitions = owned.size();
    }
    return new JoinMemberStats(
        spanRecordsRead.get(),
        spanRecordsMalformed.get(),
        metrics.recordsRead.get(),
        metrics.recordsMalformed.get(),
        breakdownsCounted.get(),
        breakdownsReplayed.get(),
        breakdownsHandedOver.get(),
        breakdownsCountedUncommitted.get(),
        commits.get(),
        commitsFailed.get(),
        partitions,
        (nanoTime.getAsLong() - lastCommitNanos) / 1_000_000L);
  }

  /** Commits what it may, leaves the group and stops. */
  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
