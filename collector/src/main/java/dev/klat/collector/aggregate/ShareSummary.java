package dev.klat.collector.aggregate;

import dev.klat.collector.correlate.join.ShareRecord;
import java.util.List;
import java.util.Map;

/**
 * A window's records of share groups (section 11 of the latency model), for {@code
 * /api/breakdown}'s {@code share} object and the diagnosis: of the sampled breakdowns alone, as
 * every other figure of the summary.
 *
 * @param records breakdowns of share groups' records in the window
 * @param redeliveredRecords of those, the records delivered more than once
 * @param deliveriesP50 the median of deliveries per record (the counted delivery's count), nearest
 *     rank
 * @param deliveriesP99 their p99
 * @param deliveriesMax their maximum
 * @param ends per cause id ({@code lock-timeout}, {@code release}, {@code reject}, {@code renew},
 *     {@code unknown}), how many earlier deliveries ended so; only the causes seen
 * @param redeliveryKnown redelivered records whose redelivery part is known
 * @param redeliveryUnknown redelivered records whose redelivery part is not (the first delivery not
 *     seen, or on a clock not related to the counted one's)
 * @param redelivery the redelivery part's quantiles over the records that know it, or null when
 *     none does
 * @param tailRecords records at or above the window's share-group p99 end to end
 * @param tailRedeliveryShare the redelivery part's share of those records' end to end, over the
 *     ones whose part is known (a record delivered once adds 0), or -1 when none is
 * @param tailRedelivered of the tail records, the ones delivered more than once
 * @param tailEnds per cause id, the earlier deliveries of the tail records that ended so
 * @param slowestRedelivered the slowest redelivered records, slowest first
 */
public record ShareSummary(
    int records,
    int redeliveredRecords,
    int deliveriesP50,
    int deliveriesP99,
    int deliveriesMax,
    Map<String, Integer> ends,
    int redeliveryKnown,
    int redeliveryUnknown,
    RecentBreakdowns.PartQuantiles redelivery,
    int tailRecords,
    double tailRedeliveryShare,
    int tailRedelivered,
    Map<String, Integer> tailEnds,
    List<Redelivered> slowestRedelivered) {

  /**
   * One redelivered record.
   *
   * @param topic its topic
   * @param group its share group
   * @param partition its partition
   * @param offset its offset
   * @param e2eNanos its end to end (to the counted delivery's {@code P}), or -1
   * @param traceIdHex its trace id
   * @param share its deliveries
   */
  public record Redelivered(
      String topic,
      String group,
      int partition,
      long offset,
      long e2eNanos,
      String traceIdHex,
      ShareRecord share) {}
}
