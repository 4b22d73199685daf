package dev.klat.itapps.springboot;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Profile;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends the records at a fixed rate once the application has started, then awaits the listeners.
 */
@Component
@Profile("!pipeline")
public class OrderSender implements ApplicationRunner {
  private final KafkaTemplate<String, String> template;
  private final OrderListeners listeners;
  private final int count;
  private final int perSecond;
  private final String topic;
  private final String batchTopic;
  private final int lingerSeconds;

  public OrderSender(
      KafkaTemplate<String, String> template,
      OrderListeners listeners,
      @Value("${app.records}") int count,
      @Value("${app.per-second}") int perSecond,
      @Value("${app.topic}") String topic,
      @Value("${app.batch-topic}") String batchTopic,
      @Value("${app.linger-seconds}") int lingerSeconds) {
    this.template = template;
    this.listeners = listeners;
    this.count = count;
    this.perSecond = perSecond;
    this.topic = topic;
    this.batchTopic = batchTopic;
    this.lingerSeconds = lingerSeconds;
  }

  @Override
  public void run(ApplicationArguments args) throws Exception {
    List<Future<?>> sent = new ArrayList<>();
    long intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
    long next = System.nanoTime();
    for (int i = 0; i < count; i++) {
      sent.add(template.send(topic, "order-" + i, "{\"order\":" + i + "}"));
      sent.add(template.send(batchTopic, "payment-" + i, "{\"payment\":" + i + "}"));
      next += intervalNanos;
      long sleepNanos = next - System.nanoTime();
      if (sleepNanos > 0) {
        TimeUnit.NANOSECONDS.sleep(sleepNanos);
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Future<?> send : sent) {
      send.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
    System.out.println("SENT=" + sent.size());
    if (!listeners.awaitAll(60)) {
      throw new IllegalStateException("the listeners did not receive every record in 60 s");
    }
    if (lingerSeconds > 0) {
      linger();
    }
  }

  /**
   * Keeps the application, and its {@code /actuator/prometheus}, up until standard input ends (the
   * test closes it once it has scraped) or {@code app.linger-seconds} passed.
   */
  private void linger() throws InterruptedException {
    CountDownLatch inputEnded = new CountDownLatch(1);
    Thread reader =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // Nothing is expected on standard input but its end.
                }
              } catch (IOException e) {
                // An unreadable input ends the wait as well.
              } finally {
                inputEnded.countDown();
              }
            },
            "linger-until-stdin-ends");
    reader.setDaemon(true);
    reader.start();
    System.out.println("LINGERING");
    inputEnded.await(lingerSeconds, TimeUnit.SECONDS);
  }
}
