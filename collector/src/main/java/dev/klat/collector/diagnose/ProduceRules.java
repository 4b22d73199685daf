package dev.klat.collector.diagnose;

import static dev.klat.collector.diagnose.TailEvidence.ms;

import dev.klat.collector.aggregate.TailRecord;
import dev.klat.collector.correlate.join.ProducerEvidence;
import dev.klat.collector.correlate.probe.CommitWaits;
import dev.klat.model.Segment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The produce segment ({@code D - S}): {@code send()} blocked before the record was in its batch
 * (waiting for metadata, for {@code buffer.memory}), a batch lingering for {@code linger.ms}, full
 * batches queued behind the producer's backlog ({@code batch.size}), batches that waited past
 * {@code linger.ms} for a free slot among the connection's in-flight requests, and retries: those
 * the leader forced by refusing {@code acks=all} writes below {@code min.insync.replicas}, and the
 * others. The time blocked in {@code send()} comes first, so that the others weigh only the time in
 * the batch.
 */
final class ProduceRules implements Rule {
  // A batch at least this full of batch.size was sent because it was full, not because linger.ms
  // ran out.
  private static final double FULL_BATCH = 0.9;
  private static final long MS = 1_000_000L;
  // Batches from this many partitions in one request, each of a record or two: records spread thin.
  private static final long SPREAD_PARTITIONS = 4;
  // The errors of a leader whose partition's ISR is below min.insync.replicas.
  private static final Set<String> BELOW_MIN_ISR =
      Set.of("NOT_ENOUGH_REPLICAS", "NOT_ENOUGH_REPLICAS_AFTER_APPEND");

  @Override
  public boolean weighs(TailRecord record) {
    return record.knows(Segment.PRODUCE);
  }

  @Override
  public List<Finding> explain(TailEvidence tail) {
    List<Finding> out = new ArrayList<>();
    Map<TailRecord, Long> held = heldBehindRefused(tail);
    // The time in the batch that is not explained by waiting behind a refused batch.
    ToLongFunction<TailRecord> free = r -> Math.max(0, inBatch(r) - held.getOrDefault(r, 0L));
    blockedInSend(tail, out);
    linger(tail, free, out);
    backlog(tail, free, out);
    inFlightSlots(tail, free, out);
    minInsyncReplicas(tail, held, out);
    retries(tail, out);
    return out;
  }

  // send() returns once the record is in a batch: before that it may wait for the topic's metadata
  // and for buffer.memory to free up. Agents that split the wait report the metadata part; the
  // rest is buffer.memory (and the serializers, the partitioner). Older agents' records go to the
  // combined rule.
  private static void blockedInSend(TailEvidence tail, List<Finding> out) {
    double metadata = tail.mean(ProduceRules::metadataWait);
    if (metadata > 0) {
      long waited = tail.records().stream().filter(r -> metadataWait(r) > 0).count();
      Map<String, Object> evidence = tail.segmentEvidence(Segment.PRODUCE);
      evidence.put("in send() waiting for the topic's metadata, tail mean", ms(metadata));
      evidence.put("tail records that waited for metadata", waited + " of " + tail.size());
      out.add(
          tail.finding(
              Segment.PRODUCE,
              "metadata wait",
              metadata,
              evidence,
              "send() waited for the topic's metadata before it could pick a partition: the"
                  + " producer knew no partitions of the topic (its first record to it, a topic"
                  + " just created, or one idle longer than metadata.max.idle.ms, 5 min by"
                  + " default, whose metadata it forgot) or the record named a partition it did not"
                  + " know yet. Call partitionsFor(topic) at start-up for the topics it will write;"
                  + " raise metadata.max.idle.ms above the longest pause of a producer that writes"
                  + " a topic rarely. Each wait is a metadata round trip to a broker, bounded by"
                  + " max.block.ms."));
    }
    double buffer = tail.mean(r -> r.producer().metadataWaitNanos() < 0 ? 0 : bufferWait(r));
    if (buffer > 0) {
      Map<String, Object> evidence = tail.segmentEvidence(Segment.PRODUCE);
      evidence.put("in send() after the metadata, tail mean", ms(buffer));
      evidence.put("buffer.memory", tail.setting(r -> r.producer().bufferMemoryBytes()));
      evidence.put("batch.size", tail.setting(r -> r.producer().batchSizeBytes()));
      out.add(
          tail.finding(
              Segment.PRODUCE,
              "buffer.memory",
              buffer,
              evidence,
              "send() had the metadata and still did not return until the record was in a batch:"
                  + " it waited for buffer.memory to free up (unsent records fill it when requests"
                  + " cannot carry them away), or the serializers or the partitioner were slow. A"
                  + " burst fits in a larger buffer.memory; a steady backlog needs more"
                  + " throughput per request (batch.size, compression) or faster brokers."));
    }
    double combined = tail.mean(r -> r.producer().metadataWaitNanos() < 0 ? blocked(r) : 0);
    if (combined <= 0) {
      return;
    }
    Map<String, Object> evidence = tail.segmentEvidence(Segment.PRODUCE);
    evidence.put("in send() before the record was in its batch, tail mean", ms(combined));
    evidence.put("buffer.memory", tail.setting(r -> r.producer().bufferMemoryBytes()));
    evidence.put("batch.size", tail.setting(r -> r.producer().batchSizeBytes()));
    out.add(
        tail.finding(
            Segment.PRODUCE,
            "send() blocked (buffer.memory, metadata)",
            combined,
            evidence,
            "send() did not return until the record was in a batch: the producer waited for"
                + " buffer.memory to free up (unsent records fill it when requests cannot carry them"
                + " away) or for the topic's metadata (a new topic, one idle past"
                + " metadata.max.idle.ms; bounded by max.block.ms). This agent does not tell the two"
                + " apart; a newer one does. A burst fits in a larger buffer.memory; a steady"
                + " backlog needs more throughput per request (batch.size, compression) or faster"
                + " brokers."));
  }

  // A batch that left before it was full waited up to linger.ms for more records.
  private static void linger(
      TailEvidence tail, ToLongFunction<TailRecord> free, List<Finding> out) {
    double explained =
        tail.mean(
            r ->
                isFull(r.producer()) || r.producer().lingerMs() <= 0
                    ? 0
                    : Math.min(r.producer().lingerMs() * MS, free.applyAsLong(r)));
    if (explained <= 0) {
      return;
    }
    long recordsPerBatch = tail.median(r -> r.producer().batchRecords());
    long batchesPerRequest = tail.median(r -> r.producer().requestBatches());
    Map<String, Object> evidence = batchEvidence(tail);
    evidence.put("partitions per produce request, tail median", orUnknown(batchesPerRequest));
    String suggestion =
        recordsPerBatch >= 0 && recordsPerBatch <= 2
            ? "Batches leave with "
                + recordsPerBatch
                + " record(s) after waiting linger.ms: too few records per partition arrive within"
                + " it. Lower linger.ms (0 to 5 ms); it costs more and smaller produce requests."
                + (batchesPerRequest >= SPREAD_PARTITIONS
                    ? " Each request carried "
                        + batchesPerRequest
                        + " partitions' batches: the records are spread over many partitions"
                        + " (keys, or a round-robin partitioner); fewer partitions, or the default"
                        + " sticky partitioner for records without keys, fill batches faster."
                    : " Keyed records spread over many partitions, or a round-robin partitioner,"
                        + " fill batches slowly: fewer partitions or the default sticky"
                        + " partitioner fill them faster.")
            : "Lower linger.ms: records wait up to it for their batch to fill. It costs more and"
                + " smaller produce requests (broker CPU, less compression), and throughput at"
                + " high rates.";
    out.add(tail.finding(Segment.PRODUCE, "linger.ms", explained, evidence, suggestion));
  }

  // A full batch left at once; when its records still waited past linger.ms, the producer had a
  // backlog: more records than its requests carry away.
  private static void backlog(
      TailEvidence tail, ToLongFunction<TailRecord> free, List<Finding> out) {
    double explained =
        tail.mean(
            r ->
                isFull(r.producer())
                    ? free.applyAsLong(r) - Math.max(0, r.producer().lingerMs()) * MS
                    : 0);
    if (explained <= 0) {
      return;
    }
    Map<String, Object> evidence = batchEvidence(tail);
    evidence.put("buffer.memory", tail.setting(r -> r.producer().bufferMemoryBytes()));
    evidence.put(
        "max.in.flight.requests.per.connection", tail.setting(r -> r.producer().maxInFlight()));
    evidence.put(
        "requests already in flight when the record's request was sent, tail median",
        orUnknown(tail.median(r -> r.producer().requestInFlight())));
    out.add(
        tail.finding(
            Segment.PRODUCE,
            "batch.size",
            explained,
            evidence,
            "Batches are full and still wait to be sent: the producer makes records faster than"
                + " its requests carry them. Raise batch.size (64 KiB to 256 KiB) so each request"
                + " carries more; it costs memory per partition. If the wait keeps growing,"
                + " buffer.memory fills and send() blocks."));
  }

  // A batch not full is ready once linger.ms has passed; one drained later waited for the
  // connection to take another request. When the request that carried it found the connection's
  // other slots taken, the wait was for a free slot: max.in.flight.requests.per.connection
  // requests were waiting on a slow leader.
  // With acks=all and the leader's probe, the part of that wait during which the leader's high
  // watermark waited for a follower is put on that follower: the requests in flight were held by
  // it, and a larger max.in.flight would only queue more behind it.
  private static void inFlightSlots(
      TailEvidence tail, ToLongFunction<TailRecord> free, List<Finding> out) {
    FollowerHolds holds = new FollowerHolds(Segment.PRODUCE);
    double slotWaits = 0;
    for (TailRecord r : tail.records()) {
      if (isFull(r.producer()) || !tookLastSlot(r.producer())) {
        continue;
      }
      long waited = Math.max(0, free.applyAsLong(r) - Math.max(0, r.producer().lingerMs()) * MS);
      CommitWaits.CommitWait wait =
          r.producer().acksAll() ? tail.commitWaitBeforeDrain(r, waited) : null;
      long held = wait == null ? 0 : Math.min(waited, wait.heldNanos());
      holds.add(r.leaderNodeId(), wait, held);
      slotWaits += waited - held;
    }
    holds.findings(tail, out);
    double explained = tail.records().isEmpty() ? 0 : slotWaits / tail.size();
    if (explained <= 0) {
      return;
    }
    Map<String, Object> evidence = batchEvidence(tail);
    evidence.put(
        "max.in.flight.requests.per.connection", tail.setting(r -> r.producer().maxInFlight()));
    evidence.put(
        "requests already in flight when the record's request was sent, tail median",
        orUnknown(tail.median(r -> r.producer().requestInFlight())));
    evidence.put(
        "in the batch past linger.ms, waiting for a free request slot, tail mean", ms(explained));
    out.add(
        tail.finding(
            Segment.PRODUCE,
            "max.in.flight.requests.per.connection",
            explained,
            evidence,
            "Batches were ready but waited for a free slot: the connection to the leader already"
                + " had max.in.flight.requests.per.connection requests waiting for their responses."
                + " The leader answers slowly (see publish and commit); up to 5 in flight keeps"
                + " ordering with enable.idempotence, so raising it from 1 pipelines more. A larger"
                + " batch.size or linger.ms carries more records per request."));
  }

  // The leader refuses an acks=all write while the partition's ISR is smaller than
  // min.insync.replicas (NOT_ENOUGH_REPLICAS; _AFTER_APPEND when the ISR shrank during the append),
  // and the producer retries until a follower is back in the ISR: the whole produce segment of
  // such a record is that wait.
  private static void minInsyncReplicas(
      TailEvidence tail, Map<TailRecord, Long> held, List<Finding> out) {
    double explained =
        tail.mean(r -> retriedBelowMinIsr(r) ? r.nanos(Segment.PRODUCE) : held.getOrDefault(r, 0L));
    if (explained <= 0) {
      return;
    }
    List<TailRecord> refused =
        tail.records().stream().filter(ProduceRules::retriedBelowMinIsr).toList();
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put(
        "tail records retried because the ISR was below min.insync.replicas",
        refused.size() + " of " + tail.size());
    evidence.put(
        "tail records held in their batch behind a refused one",
        tail.records().stream().filter(held::containsKey).count() + " of " + tail.size());
    evidence.put("error", errorCounts(refused));
    evidence.put(
        "leader the batches went to",
        refused.stream()
            .map(r -> r.leaderNodeId() < 0 ? "unknown" : "broker " + r.leaderNodeId())
            .distinct()
            .sorted()
            .collect(Collectors.joining(", ")));
    evidence.put("produce, tail mean", ms(tail.meanNanos(Segment.PRODUCE)));
    int leader = mostRefused(refused);
    long underMinIsr = tail.underMinIsr(leader);
    if (underMinIsr >= 0) {
      evidence.put("partitions under min ISR on broker " + leader, underMinIsr);
    }
    tail.partitionEvidence(leader, evidence);
    // Shrinks without as many expands: a follower left the ISR and has not come back.
    tail.isrEvidence(leader, true, evidence);
    out.add(
        tail.finding(
            Segment.PRODUCE,
            "min.insync.replicas",
            explained,
            evidence,
            "The partition's ISR was smaller than the topic's min.insync.replicas: an in-sync"
                + " replica was missing, so the leader refused acks=all writes and the producer"
                + " retried until a follower caught up. Find the follower out of the ISR (a broker"
                + " down or restarting, a replica lagging past replica.lag.time.max.ms: its disk,"
                + " network or replica fetcher threads). Lowering min.insync.replicas, or acks,"
                + " keeps writes flowing but trades durability: an acknowledged record then lives"
                + " on fewer replicas."));
  }

  // The leader most refused records went to (the lowest id of a tie), or -1 when none is known.
  private static int mostRefused(List<TailRecord> refused) {
    Map<Integer, Integer> counts = new TreeMap<>();
    refused.stream()
        .filter(r -> r.leaderNodeId() >= 0)
        .forEach(r -> counts.merge(r.leaderNodeId(), 1, Integer::sum));
    int leader = -1;
    int most = 0;
    for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
      if (e.getValue() > most) {
        leader = e.getKey();
        most = e.getValue();
      }
    }
    return leader;
  }

  // An idempotent producer (the default from 3.0) sends a partition's next batch only once the
  // batch it retries is through, so the records that arrive meanwhile wait in their batch for as
  // long as the ISR stays short, never sent and never refused themselves. Tail records do not name
  // their partition: a record is taken as held when it went to the leader of a refused record,
  // was appended after it, and waited in its batch until that record's last attempt was sent. The
  // value is the part of its produce it waited, to that last attempt.
  private static Map<TailRecord, Long> heldBehindRefused(TailEvidence tail) {
    List<TailRecord> refused =
        tail.records().stream().filter(ProduceRules::retriedBelowMinIsr).toList();
    Map<TailRecord, Long> held = new IdentityHashMap<>();
    if (refused.isEmpty()) {
      return held;
    }
    for (TailRecord r : tail.records()) {
      if (r.producer().attempts() > 1 || r.leaderNodeId() < 0 || r.nanos(Segment.PRODUCE) < 0) {
        continue;
      }
      long sent = sendEpochNanos(r);
      long longest = 0;
      for (TailRecord x : refused) {
        long lastAttempt = x.drainEpochNanos();
        if (x.leaderNodeId() == r.leaderNodeId()
            && sendEpochNanos(x) < sent
            && sent < lastAttempt
            && lastAttempt <= r.drainEpochNanos()) {
          longest = Math.max(longest, Math.min(lastAttempt - sent, inBatch(r)));
        }
      }
      if (longest > 0) {
        held.put(r, longest);
      }
    }
    return held;
  }

  // S, on the producer's clock: D less the produce segment.
  private static long sendEpochNanos(TailRecord r) {
    return r.drainEpochNanos() - r.nanos(Segment.PRODUCE);
  }

  // Each retry adds at least a round trip and retry.backoff.ms before the record is drained again.
  private static void retries(TailEvidence tail, List<Finding> out) {
    double explained = tail.mean(r -> otherRetry(r) ? r.nanos(Segment.PRODUCE) : 0);
    if (explained <= 0) {
      return;
    }
    List<TailRecord> retried = tail.records().stream().filter(ProduceRules::otherRetry).toList();
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("tail records sent more than once", retried.size() + " of " + tail.size());
    evidence.put("errors retried for", errorCounts(retried));
    evidence.put("produce, tail mean", ms(tail.meanNanos(Segment.PRODUCE)));
    out.add(
        tail.finding(
            Segment.PRODUCE,
            "retries",
            explained,
            evidence,
            "Batches were sent more than once. Look for the producer's errors (leader changes,"
                + " request timeouts) in its log and in klat.producer.records.failed; fix the cause"
                + " rather than the retry settings."));
  }

  private static boolean retriedBelowMinIsr(TailRecord r) {
    return r.producer().attempts() > 1 && BELOW_MIN_ISR.contains(r.producer().retryError());
  }

  private static boolean otherRetry(TailRecord r) {
    return r.producer().attempts() > 1 && !retriedBelowMinIsr(r);
  }

  // "NOT_LEADER_OR_FOLLOWER 3, unknown 2", most frequent first; "unknown" from agents that do not
  // report the error.
  private static String errorCounts(List<TailRecord> records) {
    Map<String, Long> counts =
        records.stream()
            .map(r -> r.producer().retryError().isEmpty() ? "unknown" : r.producer().retryError())
            .collect(Collectors.groupingBy(e -> e, TreeMap::new, Collectors.counting()));
    return counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining(", "));
  }

  // The part of produce in send(), before the record was in its batch; 0 when unknown.
  private static long blocked(TailRecord r) {
    long produce = Math.max(0, r.nanos(Segment.PRODUCE));
    long wait = r.producer().appendWaitNanos();
    return wait <= 0 ? 0 : Math.min(wait, produce);
  }

  // The part of the time blocked in send() spent waiting for metadata; 0 when unknown.
  private static long metadataWait(TailRecord r) {
    long wait = r.producer().metadataWaitNanos();
    return wait <= 0 ? 0 : Math.min(wait, blocked(r));
  }

  // The rest of the time blocked in send(), for agents that split it.
  private static long bufferWait(TailRecord r) {
    return blocked(r) - metadataWait(r);
  }

  // The part of produce in the batch: from the append to the drain.
  private static long inBatch(TailRecord r) {
    return Math.max(0, r.nanos(Segment.PRODUCE)) - blocked(r);
  }

  // The request took the connection's last free slot: the others were in flight.
  private static boolean tookLastSlot(ProducerEvidence p) {
    return p.maxInFlight() > 0 && p.requestInFlight() >= p.maxInFlight() - 1;
  }

  // Full: nearly batch.size, or with no room left for another record of the batch's mean size (a
  // batch of large records closes well short of batch.size).
  private static boolean isFull(ProducerEvidence p) {
    if (p.batchBytes() < 0 || p.batchSizeBytes() <= 0) {
      return false;
    }
    long recordBytes = p.batchRecords() > 0 ? p.batchBytes() / p.batchRecords() : 0;
    return p.batchBytes() >= FULL_BATCH * p.batchSizeBytes()
        || p.batchBytes() + recordBytes > p.batchSizeBytes();
  }

  private static Map<String, Object> batchEvidence(TailEvidence tail) {
    Map<String, Object> evidence = tail.segmentEvidence(Segment.PRODUCE);
    evidence.put("linger.ms", tail.setting(r -> r.producer().lingerMs()));
    evidence.put("batch.size", tail.setting(r -> r.producer().batchSizeBytes()));
    evidence.put(
        "records per batch, tail median", orUnknown(tail.median(r -> r.producer().batchRecords())));
    evidence.put(
        "batch bytes, tail median", orUnknown(tail.median(r -> r.producer().batchBytes())));
    return evidence;
  }

  private static Object orUnknown(long value) {
    return value < 0 ? "unknown" : value;
  }
}
