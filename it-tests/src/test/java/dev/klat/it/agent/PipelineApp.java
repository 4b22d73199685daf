package dev.klat.it.agent;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The plain applications of {@link PipelineIT}, written as users write theirs on kafka-clients 2.8
 * (whose only group protocol is the classic one): one poll loop per thread, each with its own
 * consumer and producer, none copying headers. Two modes, each controlled by lines on standard
 * input and ended by its end:
 *
 * <ul>
 *   <li>{@code source bootstrap fanRecords batchRecords}: the first producer, writing the
 *       pipeline's first topic in bursts of {@value #BURST} records every {@value #BURST_EVERY_MS}
 *       ms (an upstream that writes in batches; a burst is one produce request, so the next hop
 *       polls it at once) until the line {@code stop}; and {@code fanRecords} records to {@link
 *       #FAN_IN}, {@code batchRecords} to {@link #BATCH_IN}, {@value #SIDE_PER_SECOND} a second
 *       each (the latter in bursts of {@value #BATCH_SIZE}). Its sink threads read the fan-out and
 *       batch outputs to the end of the pipelines (groups {@link #FAN_SINK_A}, {@link #FAN_SINK_B},
 *       {@link #BATCH_SINK}). Each value is {@code sequence:sendMicros} (epoch microseconds just
 *       before {@code send()}). Prints {@code SENT chain=n fan=n batch=n} after {@code stop}, then
 *       {@code SINK topic=n} per sink once each read what it expects (or after 30 s).
 *   <li>{@code ctp bootstrap}: three consume-transform-produce loops. The chain's ({@link #ORDERS}
 *       -> group {@link #ENRICHER} -> {@link #ENRICHED}, {@code acks=all}) sleeps {@code N} ms,
 *       after the line {@code delay N}, on each record whose sequence number is divisible by 100
 *       (the first of every fifth burst), before producing its output: its burst's records all wait
 *       in its processing. The fan-out ({@link #FAN_IN} -> {@link #FANNER}) writes two records to
 *       {@link #FAN_A} and one to {@link #FAN_B} per input; the batching one ({@link #BATCH_IN} ->
 *       {@link #BATCHER}) one record to {@link #BATCH_OUT} per {@value #BATCH_SIZE} inputs taken,
 *       and one for the rest at the end of each poll. Prints {@code READY} once the three have
 *       their partitions, {@code DELAY N}, and at the end {@code CTP chain=n fan=n batch=n} (inputs
 *       read).
 * </ul>
 */
public final class PipelineApp {

  static final String ORDERS = "pipe-orders";
  static final String ENRICHER = "pipe-enricher";
  static final String ENRICHED = "pipe-enriched";
  static final String INVOICER = "pipe-invoicer";
  static final String INVOICES = "pipe-invoices";
  static final String BILLING = "pipe-billing";
  static final String FAN_IN = "pipe-fan-in";
  static final String FANNER = "pipe-fanner";
  static final String FAN_A = "pipe-fan-a";
  static final String FAN_B = "pipe-fan-b";
  static final String FAN_SINK_A = "pipe-fan-sink-a";
  static final String FAN_SINK_B = "pipe-fan-sink-b";
  static final String BATCH_IN = "pipe-batch-in";
  static final String BATCHER = "pipe-batcher";
  static final String BATCH_OUT = "pipe-batch-out";
  static final String BATCH_SINK = "pipe-batch-sink";

  static final int BURST = 10;
  static final int BURST_EVERY_MS = 200;
  static final int SIDE_PER_SECOND = 20;
  static final int FAN_A_PER_INPUT = 2;
  static final int FAN_B_PER_INPUT = 1;
  static final int BATCH_SIZE = 5;

  private static final AtomicBoolean stopping = new AtomicBoolean();
  private static final AtomicLong delayMs = new AtomicLong();

  public static void main(String[] args) throws Exception {
    String bootstrap = args[1];
    if (args[0].equals("source")) {
      source(bootstrap, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    } else {
      ctp(bootstrap);
    }
  }

  // --- source ---

  private static void source(String bootstrap, int fanRecords, int batchRecords) throws Exception {
    Map<String, AtomicLong> sunk = new ConcurrentHashMap<>();
    Map<String, Long> expected =
        Map.of(
            FAN_A, (long) fanRecords * FAN_A_PER_INPUT,
            FAN_B, (long) fanRecords * FAN_B_PER_INPUT,
            BATCH_OUT, (long) batchRecords / BATCH_SIZE);
    List<Thread> sinks = new ArrayList<>();
    CountDownLatch assigned = new CountDownLatch(3);
    for (String[] sink :
        List.of(
            new String[] {FAN_A, FAN_SINK_A},
            new String[] {FAN_B, FAN_SINK_B},
            new String[] {BATCH_OUT, BATCH_SINK})) {
      AtomicLong count = sunk.computeIfAbsent(sink[0], t -> new AtomicLong());
      Thread t =
          new Thread(
              () -> sink(bootstrap, sink[0], sink[1], expected.get(sink[0]), count, assigned),
              "sink-" + sink[0]);
      t.start();
      sinks.add(t);
    }
    if (!assigned.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("sinks not assigned in 60 s");
    }
    Thread control = controlThread();
    AtomicLong fan = new AtomicLong();
    AtomicLong batch = new AtomicLong();
    // The side streams on a thread of their own, so that their flushes never delay the chain.
    Thread sideThread =
        new Thread(
            () -> sideStreams(bootstrap, fanRecords, batchRecords, fan, batch), "side-streams");
    long chain = 0;
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(producerSettings(bootstrap))) {
      // Metadata first: a send that waits for it would not join its burst's batch.
      producer.partitionsFor(ORDERS);
      System.out.println("PRODUCING");
      sideThread.start();
      long nextBurst = System.nanoTime();
      while (!stopping.get()) {
        for (int i = 0; i < BURST; i++) {
          producer.send(new ProducerRecord<>(ORDERS, value(chain++)));
        }
        nextBurst += TimeUnit.MILLISECONDS.toNanos(BURST_EVERY_MS);
        long wait = nextBurst - System.nanoTime();
        while (wait > 0 && !stopping.get()) {
          TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50)));
          wait = nextBurst - System.nanoTime();
        }
      }
      producer.flush();
    }
    sideThread.join();
    System.out.println("SENT chain=" + chain + " fan=" + fan.get() + " batch=" + batch.get());
    for (Thread t : sinks) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    sunk.forEach((topic, n) -> System.out.println("SINK " + topic + "=" + n.get()));
    control.interrupt();
    System.exit(0);
  }

  // One fan-out input every tick, and every BATCH_SIZE ticks a burst of BATCH_SIZE batch inputs.
  // The producer sends only on flush(): a burst is one produce request and one log batch, which
  // the batching loop polls whole.
  private static void sideStreams(
      String bootstrap, int fanRecords, int batchRecords, AtomicLong fan, AtomicLong batch) {
    Properties settings = producerSettings(bootstrap);
    settings.put("linger.ms", "60000");
    try (KafkaProducer<String, String> side = new KafkaProducer<>(settings)) {
      side.partitionsFor(FAN_IN);
      side.partitionsFor(BATCH_IN);
      long everyNanos = TimeUnit.SECONDS.toNanos(1) / SIDE_PER_SECOND;
      long next = System.nanoTime();
      for (long tick = 0;
          !stopping.get() && (fan.get() < fanRecords || batch.get() < batchRecords);
          tick++) {
        if (fan.get() < fanRecords) {
          side.send(new ProducerRecord<>(FAN_IN, value(fan.getAndIncrement())));
        }
        if (tick % BATCH_SIZE == 0) {
          for (int i = 0; i < BATCH_SIZE && batch.get() < batchRecords; i++) {
            side.send(new ProducerRecord<>(BATCH_IN, value(batch.getAndIncrement())));
          }
        }
        side.flush();
        next += everyNanos;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      e.printStackTrace();
    }
  }

  private static void sink(
      String bootstrap,
      String topic,
      String group,
      long expected,
      AtomicLong count,
      CountDownLatch assigned) {
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(consumerSettings(bootstrap, group))) {
      consumer.subscribe(List.of(topic));
      while (consumer.assignment().isEmpty()) {
        consumer.poll(Duration.ofMillis(100));
      }
      assigned.countDown();
      long deadline = Long.MAX_VALUE;
      while (count.get() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> ignored : consumer.poll(Duration.ofMillis(100))) {
          count.incrementAndGet();
        }
        if (stopping.get() && deadline == Long.MAX_VALUE) {
          deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        }
      }
      // The agent exports the last polls' spans on its own schedule: keep the JVM up a while.
    } catch (RuntimeException e) {
      e.printStackTrace();
    }
  }

  // --- consume-transform-produce ---

  private static void ctp(String bootstrap) throws Exception {
    CountDownLatch assigned = new CountDownLatch(3);
    AtomicLong chain = new AtomicLong();
    AtomicLong fan = new AtomicLong();
    AtomicLong batch = new AtomicLong();
    List<Thread> loops =
        List.of(
            new Thread(() -> chainLoop(bootstrap, assigned, chain), "ctp-chain"),
            new Thread(() -> fanOutLoop(bootstrap, assigned, fan), "ctp-fan-out"),
            new Thread(() -> batchLoop(bootstrap, assigned, batch), "ctp-batch"));
    loops.forEach(Thread::start);
    if (!assigned.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("consume-transform-produce loops not assigned in 60 s");
    }
    System.out.println("READY");
    Thread control = controlThread();
    control.join();
    for (Thread t : loops) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    System.out.println("CTP chain=" + chain.get() + " fan=" + fan.get() + " batch=" + batch.get());
    // Lets the agent export the last spans before the JVM exits.
    Thread.sleep(2_000);
    System.exit(0);
  }

  private static void chainLoop(String bootstrap, CountDownLatch assigned, AtomicLong read) {
    Properties producerSettings = producerSettings(bootstrap);
    try (KafkaConsumer<String, String> consumer =
            new KafkaConsumer<>(consumerSettings(bootstrap, ENRICHER));
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerSettings)) {
      awaitAssignment(consumer, ORDERS, assigned);
      while (!stopping.get()) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<String, String> r : records) {
          read.incrementAndGet();
          long delay = delayMs.get();
          if (delay > 0 && sequence(r.value()) % 100 == 0) {
            Thread.sleep(delay);
          }
          producer.send(new ProducerRecord<>(ENRICHED, r.key(), r.value() + "-enriched"));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      e.printStackTrace();
    }
  }

  private static void fanOutLoop(String bootstrap, CountDownLatch assigned, AtomicLong read) {
    try (KafkaConsumer<String, String> consumer =
            new KafkaConsumer<>(consumerSettings(bootstrap, FANNER));
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerSettings(bootstrap))) {
      awaitAssignment(consumer, FAN_IN, assigned);
      while (!stopping.get()) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          read.incrementAndGet();
          for (int i = 0; i < FAN_A_PER_INPUT; i++) {
            producer.send(new ProducerRecord<>(FAN_A, r.value() + "-line-" + i));
          }
          for (int i = 0; i < FAN_B_PER_INPUT; i++) {
            producer.send(new ProducerRecord<>(FAN_B, r.value() + "-audit"));
          }
        }
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
    }
  }

  private static void batchLoop(String bootstrap, CountDownLatch assigned, AtomicLong read) {
    try (KafkaConsumer<String, String> consumer =
            new KafkaConsumer<>(consumerSettings(bootstrap, BATCHER));
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerSettings(bootstrap))) {
      awaitAssignment(consumer, BATCH_IN, assigned);
      StringBuilder batch = new StringBuilder();
      int inBatch = 0;
      while (!stopping.get()) {
        // Each record is taken from the iterator before the output it goes into is sent: the
        // output links the records taken since the previous output. A batch ends with its poll
        // (docs/pipelines.md: every poll starts the thread's links afresh).
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          read.incrementAndGet();
          batch.append(inBatch == 0 ? "" : ",").append(r.value());
          if (++inBatch == BATCH_SIZE) {
            producer.send(new ProducerRecord<>(BATCH_OUT, batch.toString()));
            batch.setLength(0);
            inBatch = 0;
          }
        }
        if (inBatch > 0) {
          producer.send(new ProducerRecord<>(BATCH_OUT, batch.toString()));
          batch.setLength(0);
          inBatch = 0;
        }
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
    }
  }

  private static void awaitAssignment(
      KafkaConsumer<String, String> consumer, String topic, CountDownLatch assigned) {
    consumer.subscribe(List.of(topic));
    while (consumer.assignment().isEmpty()) {
      ConsumerRecords<String, String> none = consumer.poll(Duration.ofMillis(100));
      if (!none.isEmpty()) {
        throw new IllegalStateException(topic + " had records before the loop was ready");
      }
    }
    assigned.countDown();
  }

  // Reads "delay N" and "stop" lines; the end of standard input stops as well.
  private static Thread controlThread() {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  String[] words = line.trim().split(" ");
                  if (words[0].equals("stop")) {
                    break;
                  }
                  if (words.length == 2 && words[0].equals("delay")) {
                    delayMs.set(Long.parseLong(words[1]));
                    System.out.println("DELAY " + delayMs.get());
                  }
                }
              } catch (java.io.IOException e) {
                // An unreadable input stops as its end does.
              }
              stopping.set(true);
            },
            "control");
    t.setDaemon(true);
    t.start();
    return t;
  }

  // The sequence number and the send time in epoch micros, which the last hop reads back.
  private static String value(long sequence) {
    return sequence + ":" + TailApp.epochMicros();
  }

  // The value's leading decimal digits: the source's sequence number; -1 when none.
  static long sequence(String value) {
    long n = 0;
    int i = 0;
    while (i < value.length() && Character.isDigit(value.charAt(i))) {
      n = n * 10 + (value.charAt(i) - '0');
      i++;
    }
    return i == 0 ? -1 : n;
  }

  private static Properties producerSettings(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    // kafka-clients 2.8's default is acks=1; a user who wants durability sets it.
    p.put("acks", "all");
    p.put("linger.ms", "5");
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    return p;
  }

  private static Properties consumerSettings(String bootstrap, String group) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("auto.offset.reset", "earliest");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    return p;
  }

  private PipelineApp() {}
}
