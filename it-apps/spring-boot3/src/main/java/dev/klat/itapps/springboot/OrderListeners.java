package dev.klat.itapps.springboot;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Profile;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** A record listener and a batch listener, each in its own consumer group. */
@Component
@Profile("!pipeline")
public class OrderListeners {
  private final CountDownLatch records;
  private final CountDownLatch batchRecords;
  private final AtomicInteger received = new AtomicInteger();
  private final AtomicInteger batchReceived = new AtomicInteger();

  public OrderListeners(@Value("${app.records}") int count) {
    this.records = new CountDownLatch(count);
    this.batchRecords = new CountDownLatch(count);
  }

  @KafkaListener(topics = "${app.topic}", groupId = "${app.group}")
  public void onOrder(ConsumerRecord<String, String> record) {
    received.incrementAndGet();
    records.countDown();
  }

  @KafkaListener(topics = "${app.batch-topic}", groupId = "${app.batch-group}", batch = "true")
  public void onPayments(List<ConsumerRecord<String, String>> batch) {
    for (int i = 0; i < batch.size(); i++) {
      batchReceived.incrementAndGet();
      batchRecords.countDown();
    }
  }

  /** Waits until both listeners saw their records; true when they did within {@code seconds}. */
  boolean awaitAll(long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    boolean all = records.await(seconds, TimeUnit.SECONDS);
    long left = Math.max(0, deadline - System.nanoTime());
    all &= batchRecords.await(left, TimeUnit.NANOSECONDS);
    System.out.println("RECEIVED=" + received.get());
    System.out.println("BATCH_RECEIVED=" + batchReceived.get());
    return all;
  }
}
