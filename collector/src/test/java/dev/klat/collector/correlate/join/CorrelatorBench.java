package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.instants.BrokerInstants;
import java.util.ArrayList;
import java.util.List;

/**
 * A manual benchmark of the join (not a test): joined breakdowns per second on one thread, and the
 * heap a full join table holds. Run it as in {@code docs/benchmarks.md}.
 */
public final class CorrelatorBench {
  private CorrelatorBench() {}

  public static void main(String[] args) {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    // "full": every breakdown also goes to the segment histograms and the recent ring, as in the
    // collector; otherwise only the join and the breakdown are measured.
    boolean full = args.length > 2 && args[2].equals("full");
    var histograms = new dev.klat.collector.aggregate.BreakdownMetrics(1000, () -> 0L);
    var recent = new dev.klat.collector.aggregate.RecentBreakdowns(100_000);
    long[] joined = new long[1];
    for (int round = 0; round < rounds; round++) {
      // Fresh spans per round: the join keeps its inputs, as it does for real traffic.
      List<ProducerSpan> producers = new ArrayList<>(records);
      List<ConsumerSpan> consumers = new ArrayList<>(records);
      for (int i = 0; i < records; i++) {
        RecordKey key = new RecordKey("orders", i % 12, i);
        double s = i * 0.01;
        producers.add(Spans.producer(key, Spans.PRODUCER_HOST + i % 4, s, s + 1, s + 5, -1));
        consumers.add(Spans.consumer(key, "g", Spans.CONSUMER_HOST + i % 4, s + 2, s + 6, s + 7));
      }
      Correlator c =
          new Correlator(
              new Correlator.Settings(60_000_000_000L, records, 300_000_000_000L, 10_000),
              System::nanoTime,
              BrokerInstants.logAppendTime(),
              b -> {
                joined[0] += b.breakdown().e2eNanos() & 1;
                if (full) {
                  histograms.record(b);
                  recent.add(b, 0);
                }
              });
      long start = System.nanoTime();
      for (int i = 0; i < records; i++) {
        c.offerProducer(producers.get(i));
        c.offerConsumer(consumers.get(i));
      }
      long elapsed = System.nanoTime() - start;
      System.gc();
      Runtime rt = Runtime.getRuntime();
      long heapBytes = rt.totalMemory() - rt.freeMemory();
      System.out.printf(
          "round %d: %d joins in %.3f s = %.0f joins/s; heap after GC with %d records pending:"
              + " %.1f MiB%n",
          round,
          c.stats().joined(),
          elapsed / 1e9,
          c.stats().joined() / (elapsed / 1e9),
          c.pendingRecords(),
          heapBytes / 1048576.0);
    }
    System.out.println(joined[0] >= 0 ? "done" : "");
  }
}
