package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.log.VerificationGuard;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The high-watermark hook's read of the last stable offset, on real broker classes: a real 4.4.0
 * {@code UnifiedLog} (on the test class path) with an open and then a committed transaction, read
 * by the hook as the woven broker calls it; and, in every older supported broker jar, the log class
 * {@code maybeIncrementLeaderHW} takes declares the public {@code lastStableOffset()J} the hook's
 * method handle looks up (3.6 to 4.0: Scala {@code kafka.log.UnifiedLog}, in the same jar).
 */
class StableOffsetReadTest {

  private static final String PARTITION = "kafka/cluster/Partition";

  @Test
  void theHookReadsARealLogsLastStableOffsetBehindAnOpenTransactionAndPastItsMarker(
      @TempDir Path dir) throws Exception {
    KafkaScheduler scheduler = new KafkaScheduler(1);
    scheduler.startup();
    File logDir = Files.createDirectory(dir.resolve("orders-0")).toFile();
    UnifiedLog log =
        UnifiedLog.create(
            logDir,
            new LogConfig(new HashMap<>()),
            0L,
            0L,
            scheduler,
            new BrokerTopicStats(),
            Time.SYSTEM,
            900_000,
            new ProducerStateManagerConfig(86_400_000, false),
            600_000,
            new LogDirFailureChannel(1),
            true,
            Optional.empty());
    EventRing ring = new EventRing(16);
    PartitionHooks.install(ring);
    TopicPartition tp = new TopicPartition("orders", 0);
    try {
      long producerId = 7;
      short producerEpoch = 0;
      log.appendAsLeader(
          MemoryRecords.withTransactionalRecords(
              Compression.NONE,
              producerId,
              producerEpoch,
              0,
              new SimpleRecord("a".getBytes()),
              new SimpleRecord("b".getBytes()),
              new SimpleRecord("c".getBytes())),
          0);
      log.updateHighWatermark(3);
      PartitionHooks.highWatermarkChecked(true, tp, 0, 1, log);

      log.appendAsLeader(
          MemoryRecords.withEndTransactionMarker(
              producerId, producerEpoch, new EndTransactionMarker(ControlRecordType.COMMIT, 0)),
          0,
          AppendOrigin.COORDINATOR,
          RequestLocal.noCaching(),
          VerificationGuard.SENTINEL,
          (short) 0); // transaction version 0: a marker as a 3.x coordinator writes it
      log.updateHighWatermark(4);
      PartitionHooks.highWatermarkChecked(true, tp, 0, 1, log);

      List<long[]> events = new ArrayList<>(); // {high watermark, last stable offset}
      ring.drain(
          (kind, partition, epoch, first, last, epochNanos, stable) ->
              events.add(new long[] {last, stable}));
      assertThat(events)
          .containsExactly(
              new long[] {3, 0}, // the transaction's records committed, not stable
              new long[] {4, 4}); // its marker committed: stable
    } finally {
      PartitionHooks.install(null);
      log.close();
      scheduler.shutdown();
    }
  }

  static List<Path> scalaLogBrokerJars() throws Exception {
    List<Path> jars = new ArrayList<>();
    for (Path jar : PartitionWeavingTest.supportedBrokerJars()) {
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        if (zip.getEntry("kafka/log/UnifiedLog.class") != null) {
          jars.add(jar);
        }
      }
    }
    return jars;
  }

  @Test
  void theScalaLogIsInEveryBrokerJarTo40() throws Exception {
    assertThat(scalaLogBrokerJars())
        .extracting(p -> p.getFileName().toString())
        .containsExactly(
            "kafka_2.13-3.6.2.jar",
            "kafka_2.13-3.7.2.jar",
            "kafka_2.13-3.8.1.jar",
            "kafka_2.13-3.9.2.jar",
            "kafka_2.13-4.0.2.jar");
  }

  @ParameterizedTest
  @MethodSource("scalaLogBrokerJars")
  void theLogTheHookIsGivenDeclaresLastStableOffset(Path jar) throws Exception {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      String logClass = leaderLogClass(read(zip, PARTITION + ".class"));
      assertThat(logClass).isEqualTo("kafka/log/UnifiedLog");
      List<String> methods = publicMethods(read(zip, logClass + ".class"));
      assertThat(methods).contains("lastStableOffset()J", "highWatermark()J");
    }
  }

  // The class of maybeIncrementLeaderHW's first argument (the leader's log).
  private static String leaderLogClass(byte[] partition) {
    String[] found = {null};
    new ClassReader(partition)
        .accept(
            new ClassVisitor(Opcodes.ASM9) {
              @Override
              public MethodVisitor visitMethod(
                  int access, String name, String descriptor, String signature, String[] ex) {
                if (name.equals("maybeIncrementLeaderHW") && descriptor.endsWith("J)Z")) {
                  found[0] = descriptor.substring(2, descriptor.indexOf(';'));
                }
                return null;
              }
            },
            ClassReader.SKIP_CODE);
    return found[0];
  }

  private static List<String> publicMethods(byte[] type) {
    List<String> out = new ArrayList<>();
    new ClassReader(type)
        .accept(
            new ClassVisitor(Opcodes.ASM9) {
              @Override
              public MethodVisitor visitMethod(
                  int access, String name, String descriptor, String signature, String[] ex) {
                if ((access & Opcodes.ACC_PUBLIC) != 0 && (access & Opcodes.ACC_STATIC) == 0) {
                  out.add(name + descriptor);
                }
                return null;
              }
            },
            ClassReader.SKIP_CODE);
    return out;
  }

  private static byte[] read(ZipFile zip, String name) throws Exception {
    ZipEntry entry = zip.getEntry(name);
    try (InputStream in = zip.getInputStream(entry)) {
      return in.readAllBytes();
    }
  }
}
