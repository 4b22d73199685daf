package dev.klat.collector.scale.join;

import dev.klat.collector.KafkaClientConfig;
import dev.klat.collector.receive.OtlpIngest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the broker probes' topic whole, in every join member: any member may join a record of any
 * partition of any broker, so each needs every probe's instants. Not a group member (no offsets
 * committed): at start it goes back far enough to cover the spans it may read again.
 */
public final class ProbeLogReader implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ProbeLogReader.class.getName());
  static final long RETRY_MILLIS = 5_000;

  private final String topic;
  private final long lookBackMillis;
  private final Duration metadataTimeout;
  private final long retryMillis;
  private final OtlpIngest ingest;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private final AtomicLong recordsRead = new AtomicLong();
  private final AtomicLong recordsMalformed = new AtomicLong();
  private volatile boolean running = true;
  // Why the reader stopped while it should run; null while it reads or retries.
  private volatile String stoppedReading;
  // Why it last asked for the topic's partitions again, once per distinct reason in the log.
  private String retryReason;
  private final AtomicLong startRetries = new AtomicLong();

  /**
   * @param bootstrapServers the cluster
   * @param topic the broker probes' topic
   * @param lookBackMillis how far back to start reading: at least the join window, since a member
   *     taking a partition over reads its spans again from up to a window back
   * @param ingest decodes the probes' records
   */
  public ProbeLogReader(
      String bootstrapServers,
      KafkaClientConfig client,
      String topic,
      long lookBackMillis,
      OtlpIngest ingest) {
    this(
        bootstrapServers,
        client,
        topic,
        lookBackMillis,
        ingest,
        Duration.ofSeconds(30),
        RETRY_MILLIS);
  }

  ProbeLogReader(
      String bootstrapServers,
      KafkaClientConfig client,
      String topic,
      long lookBackMillis,
      OtlpIngest ingest,
      Duration metadataTimeout,
      long retryMillis) {
    this.metadataTimeout = metadataTimeout;
    this.retryMillis = retryMillis;
    this.topic = topic;
    this.lookBackMillis = lookBackMillis;
    this.ingest = ingest;
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "klat-probe-reader");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(client.over(p, "the probe topic reader"));
    this.thread = new Thread(this::run, "klat-probe-reader");
    this.thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  private void run() {
    try {
      List<TopicPartition> partitions = awaitPartitions();
      if (partitions.isEmpty()) {
        return;
      }
      consumer.assign(partitions);
      Map<TopicPartition, Long> from = new HashMap<>();
      long startMillis = System.currentTimeMillis() - lookBackMillis;
      for (TopicPartition tp : partitions) {
        from.put(tp, startMillis);
      }
      Map<TopicPartition, OffsetAndTimestamp> offsets =
          consumer.offsetsForTimes(from, metadataTimeout);
      for (TopicPartition tp : partitions) {
        OffsetAndTimestamp at = offsets.get(tp);
        if (at == null) {
          consumer.seekToEnd(List.of(tp));
        } else {
          consumer.seek(tp, at.offset());
        }
      }
      while (running) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          recordsRead.incrementAndGet();
          String error = record.value() == null ? "no value" : ingest.logsFrom(record.value());
          if (error != null && recordsMalformed.getAndIncrement() == 0) {
            JoinMember.warnMalformed(record, "logs", error, "probeTopicRecordsMalformed");
          }
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      stoppedReading = "the probe topic reader stopped: " + e;
      LOG.log(Level.SEVERE, "the probe topic reader stopped", e);
    } finally {
      consumer.close(Duration.ofSeconds(2));
    }
  }

  /**
   * The topic's partitions, asked for again every {@value #RETRY_MILLIS} ms while the cluster
   * cannot be reached or the topic does not exist yet (the ingest role creates it), so that a
   * member started before its cluster reads the instants once it can; empty when closed meanwhile.
   */
  private List<TopicPartition> awaitPartitions() {
    List<TopicPartition> partitions = new ArrayList<>();
    while (running) {
      try {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, metadataTimeout);
        if (infos != null && !infos.isEmpty()) {
          for (PartitionInfo info : infos) {
            partitions.add(new TopicPartition(topic, info.partition()));
          }
          return partitions;
        }
        notReading("the probe topic " + topic + " does not exist yet; asking again");
      } catch (TimeoutException e) {
        notReading(
            "the probe topic reader cannot reach the cluster (" + e.getMessage() + "); retrying");
      }
      pause(retryMillis);
    }
    return partitions;
  }

  // Not a problem for /healthz: a restart would not help, and the reader recovers by itself.
  private void notReading(String why) {
    startRetries.incrementAndGet();
    if (!why.equals(retryReason)) {
      LOG.warning(why);
      retryReason = why;
    }
  }

  private void pause(long millis) {
    long until = System.nanoTime() + millis * 1_000_000L;
    try {
      while (running && System.nanoTime() - until < 0) {
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /**
   * Why this reader stopped reading the probes' topic, or null while it reads or still asks for the
   * topic (unreachable, or the topic missing): stopped, the joins lack the brokers' instants until
   * a restart, so {@code /healthz} says so.
   */
  public String problem() {
    return stoppedReading;
  }

  /** Times it asked for the topic's partitions again: unreachable, or the topic missing. */
  public long startRetries() {
    return startRetries.get();
  }

  /** Records read since start. */
  public long recordsRead() {
    return recordsRead.get();
  }

  /** Of those, the ones that did not decode. */
  public long recordsMalformed() {
    return recordsMalformed.get();
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
