package dev.klat.it.agent;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.TopicSpec;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Makes one broker the leader of many partitions, all of them written: a topic of {@code
 * partitions} partitions, three replicas each, every one led by broker {@code nodeId}, and a
 * producer in the test's JVM, without the agent, writing small records to each partition in turn at
 * {@code recordsPerSecond}, {@code linger.ms=20}: each produce request appends to as many
 * partitions as records arrived in 20 ms (30 at 1,500 a second), and the followers fetch every
 * partition from the leader, all of them changing.
 */
final class ManyPartitionsLoad implements AutoCloseable {

  static final String TOPIC = "dx-many-load";
  private static final int VALUE_BYTES = 100;

  private final KafkaProducer<byte[], byte[]> producer;
  private final Thread sender;
  private final AtomicLong acknowledged = new AtomicLong();
  private volatile boolean running = true;

  ManyPartitionsLoad(KafkaCluster cluster, int nodeId, int partitions, int recordsPerSecond)
      throws Exception {
    cluster.createTopic(
        TopicSpec.named(TOPIC)
            .partitions(partitions)
            .replicationFactor(3)
            .preferredLeader(nodeId)
            .build());
    Properties p = new Properties();
    p.put("bootstrap.servers", cluster.bootstrapServers());
    p.put("acks", "1");
    p.put("linger.ms", "20");
    p.put("client.id", "many-partitions-load");
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(p);
    byte[] value = AccuracyApp.text(VALUE_BYTES);
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
    sender =
        new Thread(
            () -> {
              long next = System.nanoTime();
              int partition = 0;
              while (running) {
                producer.send(
                    new ProducerRecord<>(TOPIC, partition, null, value),
                    (metadata, error) -> {
                      if (error == null) {
                        acknowledged.incrementAndGet();
                      }
                    });
                partition = (partition + 1) % partitions;
                next += intervalNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                  LockSupport.parkNanos(wait);
                }
              }
            },
            "many-partitions-load");
    sender.start();
  }

  /** The records the leader has taken so far. */
  long acknowledged() {
    return acknowledged.get();
  }

  @Override
  public void close() throws Exception {
    running = false;
    sender.join(TimeUnit.SECONDS.toMillis(30));
    producer.close(Duration.ofSeconds(10));
  }
}
