package dev.klat.it.agent;

import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.TopicSpec;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Keeps one broker's only I/O thread busy: the broker runs with {@code num.io.threads=1} (a dynamic
 * setting, lowered in two steps as Kafka allows at most halving it at once), and a producer in the
 * test's JVM, without the agent, sends uncompressed 900 KB batches of text to a topic it leads
 * whose {@code compression.type} is {@code zstd} at level 19: the broker recompresses each batch on
 * that thread (about 3.6 MB/s for such text with the zstd command line at -19 on the development
 * machine: some 250 ms a batch), and every other request to the broker waits in its request queue.
 */
final class BusyIoThread implements AutoCloseable {

  static final String TOPIC = "dx-queue-load";
  private static final int VALUE_BYTES = 900_000;

  private final KafkaProducer<byte[], byte[]> producer;
  private final Thread sender;
  private final AtomicLong acknowledged = new AtomicLong();
  private volatile boolean running = true;

  BusyIoThread(KafkaCluster cluster, int nodeId) throws Exception {
    cluster.createTopic(
        TopicSpec.named(TOPIC)
            .preferredLeader(nodeId)
            .config("compression.type", "zstd")
            .config("compression.zstd.level", "19")
            .config("max.message.bytes", "2000000")
            .build());
    try (Admin admin = cluster.admin()) {
      ConfigResource broker =
          new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(nodeId));
      for (String threads : List.of("2", "1")) {
        // The broker checks the next step against the count it runs with: the first step must
        // have been applied, a moment after it was accepted.
        for (int attempt = 1; ; attempt++) {
          try {
            admin
                .incrementalAlterConfigs(
                    Map.of(
                        broker,
                        List.of(
                            new AlterConfigOp(
                                new ConfigEntry("num.io.threads", threads),
                                AlterConfigOp.OpType.SET))))
                .all()
                .get(30, TimeUnit.SECONDS);
            break;
          } catch (ExecutionException e) {
            if (!(e.getCause() instanceof InvalidRequestException) || attempt == 40) {
              throw e;
            }
            Thread.sleep(250);
          }
        }
      }
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", cluster.bootstrapServers());
    p.put("acks", "1");
    p.put("linger.ms", "0");
    p.put("compression.type", "none");
    p.put("batch.size", Integer.toString(VALUE_BYTES + 100_000));
    p.put("max.request.size", "2000000");
    p.put("client.id", "busy-io-thread");
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(p);
    byte[] text = AccuracyApp.text(VALUE_BYTES);
    sender =
        new Thread(
            () -> {
              while (running) {
                // Blocks in send() once buffer.memory is full: as fast as the broker takes them.
                producer.send(
                    new ProducerRecord<>(TOPIC, text),
                    (metadata, error) -> {
                      if (error == null) {
                        acknowledged.incrementAndGet();
                      }
                    });
              }
            },
            "busy-io-thread");
    sender.start();
  }

  /**
   * Sets {@code topic} to keep its batches compressed with zstd at level 19: a producer sending
   * them uncompressed makes the leader recompress each batch on its request handler thread.
   */
  static void recompressAtZstd19(KafkaCluster cluster, String topic) throws Exception {
    try (Admin admin = cluster.admin()) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, topic),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("compression.type", "zstd"), AlterConfigOp.OpType.SET),
                      new AlterConfigOp(
                          new ConfigEntry("compression.zstd.level", "19"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /** The batches the broker has taken so far. */
  long acknowledged() {
    return acknowledged.get();
  }

  @Override
  public void close() throws Exception {
    running = false;
    sender.join(TimeUnit.SECONDS.toMillis(30));
    producer.close(java.time.Duration.ofSeconds(10));
  }
}
