package dev.klat.collector;

import dev.klat.collector.scale.ingest.TraceSplitter;
import dev.klat.kafka.cluster.KafkaCluster;
import dev.klat.kafka.cluster.KafkaClusterSpec;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A manual benchmark of the join role's whole path (not a test): the span topic, filled the way the
 * ingest role fills it (each agent's request split per trace, producer and consumer spans in
 * separate requests as two agents send them), read by a collector in {@code --mode=join} in this
 * JVM, until every record has joined. Prints the collector's CPU time per span (the process's, the
 * broker runs in its own JVM) and the wall time. Run as in {@code docs/scale-out.md}.
 *
 * <p>{@code JoinBench <requests> [partitions]}: requests of {@link IngestBench#PER_REQUEST} records
 * each, on a span topic of {@code partitions} partitions (default 12).
 */
public final class JoinBench {
  private JoinBench() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int partitions = args.length > 1 ? Integer.parseInt(args[1]) : 12;
    long records = (long) requests * IngestBench.PER_REQUEST;
    try (KafkaCluster cluster = KafkaClusterSpec.brokers(1).name("join-bench").start()) {
      Map<String, String> settings = new HashMap<>();
      settings.put("mode", "join");
      settings.put("spans.kafka.bootstrap-servers", cluster.bootstrapServers());
      settings.put("spans.kafka.partitions", Integer.toString(partitions));
      settings.put("spans.kafka.replication-factor", "1");
      settings.put("admin.port", "0");
      settings.put("join.max-pending-records", Long.toString(records + 1));
      long pieces = fill(cluster.bootstrapServers(), requests, partitions);
      System.out.printf("span topic filled: %d records for %d joins%n", pieces, records);

      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      System.gc();
      long cpuBefore = os.getProcessCpuTime();
      long wallBefore = System.nanoTime();
      try (Collector collector = Collector.start(CollectorConfig.of(settings))) {
        while (collector.correlator().stats().joined() < records) {
          Thread.sleep(50);
        }
        long cpuNanos = os.getProcessCpuTime() - cpuBefore;
        long wallNanos = System.nanoTime() - wallBefore;
        long spans = 2 * records;
        System.out.printf(
            Locale.ROOT,
            "join role: %d spans (%d joins) from %d records on %d partitions in %.2f s wall"
                + " (group join included), %.2f s of CPU = %.0f ns of CPU per span ="
                + " %.0f spans per CPU-second%n",
            spans,
            records,
            pieces,
            partitions,
            wallNanos / 1e9,
            cpuNanos / 1e9,
            cpuNanos / (double) spans,
            spans / (cpuNanos / 1e9));
      }
    }
  }

  // The ingest role's records, written before the clock starts: each request split in two by span
  // kind (two agents), each half split per trace as KafkaIngest does.
  private static long fill(String bootstrap, int requests, int partitions) throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    long pieces = 0;
    // The collector creates the topics; start one briefly so that they exist with its settings.
    Map<String, String> settings = new HashMap<>();
    settings.put("mode", "ingest");
    settings.put("spans.kafka.bootstrap-servers", bootstrap);
    settings.put("spans.kafka.partitions", Integer.toString(partitions));
    settings.put("spans.kafka.replication-factor", "1");
    settings.put("otlp.http.port", "0");
    settings.put("otlp.grpc.enabled", "false");
    settings.put("admin.port", "0");
    Collector.start(CollectorConfig.of(settings)).close();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (byte[] body : IngestBench.bodies(requests, 0)) {
        for (Span.SpanKind kind :
            List.of(Span.SpanKind.SPAN_KIND_PRODUCER, Span.SpanKind.SPAN_KIND_CONSUMER)) {
          byte[] half = only(body, kind);
          for (TraceSplitter.Piece piece : TraceSplitter.split(half, half.length)) {
            producer.send(new ProducerRecord<>("klat-spans", piece.key(), piece.body()));
            pieces++;
          }
        }
      }
    }
    return pieces;
  }

  private static byte[] only(byte[] body, Span.SpanKind kind) throws Exception {
    ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
    ExportTraceServiceRequest.Builder out = ExportTraceServiceRequest.newBuilder();
    for (ResourceSpans rs : request.getResourceSpansList()) {
      ResourceSpans.Builder r = rs.toBuilder().clearScopeSpans();
      for (ScopeSpans ss : rs.getScopeSpansList()) {
        ScopeSpans.Builder s = ss.toBuilder().clearSpans();
        for (Span span : ss.getSpansList()) {
          if (span.getKind() == kind) {
            s.addSpans(span);
          }
        }
        r.addScopeSpans(s);
      }
      out.addResourceSpans(r);
    }
    return out.build().toByteArray();
  }
}
