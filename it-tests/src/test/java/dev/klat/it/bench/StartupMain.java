package dev.klat.it.bench;

import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Creates and closes one producer, which loads (and, with the agent, transforms) the producer
 * classes: the JVM's wall time from start to exit is what the agent adds to an application's
 * start-up. No broker is needed: the producer is closed before it connects anywhere.
 */
public final class StartupMain {

  private StartupMain() {}

  public static void main(String[] args) {
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:1");
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    new KafkaProducer<byte[], byte[]>(p).close(java.time.Duration.ZERO);
  }
}
