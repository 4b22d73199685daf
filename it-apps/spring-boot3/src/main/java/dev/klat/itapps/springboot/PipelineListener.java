package dev.klat.itapps.springboot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Profile;
import org.springframework.context.event.EventListener;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.event.ListenerContainerIdleEvent;
import org.springframework.stereotype.Component;

/**
 * The last hop of PipelineIT's pipeline (profile {@code pipeline}): a record listener that reads
 * {@code app.pipeline.topic} as group {@code app.pipeline.group} with {@code isolation.level=
 * read_committed} (the topic is a Kafka Streams {@code exactly_once_v2} application's output), and
 * a delay knob read from standard input: a line {@code delay N} makes the listener sleep {@code N}
 * ms on every record whose value starts with a sequence number divisible by 100, as a slow call
 * would; the records behind it wait in the consumer. Prints {@code READY} once the listener has its
 * partitions, {@code DELAY N} when a delay is set, and {@code RECEIVED=n} when standard input ends,
 * after which the application exits.
 */
@Component
@Profile("pipeline")
public class PipelineListener implements ApplicationRunner {
  private final AtomicLong delayMs = new AtomicLong();
  private final AtomicInteger received = new AtomicInteger();
  private volatile boolean ready;

  @KafkaListener(
      topics = "${app.pipeline.topic}",
      groupId = "${app.pipeline.group}",
      properties = {
        "isolation.level=read_committed",
        "interceptor.classes=dev.klat.itapps.springboot.PollTimeInterceptor"
      })
  public void onInvoice(ConsumerRecord<String, String> record) throws InterruptedException {
    received.incrementAndGet();
    System.out.println(
        "T "
            + sequence(record.value())
            + " "
            + sendMicros(record.value())
            + " "
            + PollTimeInterceptor.lastPollMicros());
    long delay = delayMs.get();
    if (delay > 0 && sequence(record.value()) % 100 == 0) {
      TimeUnit.MILLISECONDS.sleep(delay);
    }
  }

  /** The container is idle (polled, nothing came) only once it has joined its group. */
  @EventListener
  public void onIdle(ListenerContainerIdleEvent event) {
    if (!ready && event.getTopicPartitions() != null && !event.getTopicPartitions().isEmpty()) {
      ready = true;
      System.out.println("READY");
    }
  }

  // The value's leading decimal digits, as the source wrote them; -1 when none.
  static long sequence(String value) {
    long n = 0;
    int i = 0;
    while (value != null && i < value.length() && Character.isDigit(value.charAt(i))) {
      n = n * 10 + (value.charAt(i) - '0');
      i++;
    }
    return i == 0 ? -1 : n;
  }

  // The digits after the first ':' of the value: the source's send time; -1 when none.
  static long sendMicros(String value) {
    int colon = value == null ? -1 : value.indexOf(':');
    return colon < 0 ? -1 : sequence(value.substring(colon + 1));
  }

  @Override
  public void run(ApplicationArguments args) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] words = line.trim().split(" ");
      if (words.length == 2 && words[0].equals("delay")) {
        delayMs.set(Long.parseLong(words[1]));
        System.out.println("DELAY " + delayMs.get());
      }
    }
    System.out.println("RECEIVED=" + received.get());
  }
}
