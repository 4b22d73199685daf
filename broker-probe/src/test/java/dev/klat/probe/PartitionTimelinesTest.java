package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.BrokerProbeWire;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionTimelinesTest {

  private final List<String> out = new ArrayList<>();
  private final PartitionTimelines.Sink sink =
      (tp, epoch, appends, commits, stables, stableFrom) ->
          out.add(
              tp
                  + "@"
                  + epoch
                  + " appends="
                  + ranges(appends)
                  + " commits="
                  + ranges(commits)
                  + (stables == null
                      ? ""
                      : " stables=" + ranges(stables) + " stableFrom=" + stableFrom));

  @Test
  void appendsWithinOneTickBecomeOneRangeWithTheLaterTime() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 1_000);
    timelines.event(EventRing.APPEND, "t-0", 5, 0, 9, 10_100_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.APPEND, "t-0", 5, 10, 19, 10_600_000L, RequestTimes.UNKNOWN);
    // The next millisecond starts a new range.
    timelines.event(EventRing.APPEND, "t-0", 5, 20, 29, 11_100_000L, RequestTimes.UNKNOWN);
    timelines.flushAll(sink);
    assertThat(out).containsExactly("t-0@5 appends=[0-19@10100..10600, 20-29@11100] commits=[]");
  }

  @Test
  void aGapInOffsetsIsNeverBridged() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 1_000);
    timelines.event(EventRing.APPEND, "t-0", 5, 0, 9, 10_100_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.APPEND, "t-0", 5, 12, 19, 10_200_000L, RequestTimes.UNKNOWN);
    timelines.flushAll(sink);
    assertThat(out).containsExactly("t-0@5 appends=[0-9@10100, 12-19@10200] commits=[]");
  }

  @Test
  void theFirstHighWatermarkOfATermCommitsEveryOffsetBelowIt() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 110, 2_000_000L, RequestTimes.UNKNOWN);
    // A report of an older high watermark (two threads racing) says nothing new.
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 105, 2_100_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 111, 3_000_000L, RequestTimes.UNKNOWN);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly("t-0@5 appends=[] commits=[0-99@1000, 100-109@2000, 110-110@3000]");
  }

  @Test
  void afterLostEventsTheNextAdvanceOnlySetsWhereTheFollowingRangeStarts() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, RequestTimes.UNKNOWN);
    timelines.forgetHighWatermarks();
    // An advance to 105 was lost: 100-104 must not be reported as committed at 3 ms.
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 107, 3_000_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 108, 4_000_000L, RequestTimes.UNKNOWN);
    timelines.flushAll(sink);
    assertThat(out).containsExactly("t-0@5 appends=[] commits=[0-99@1000, 107-107@4000]");
  }

  @Test
  void aPartitionWhoseLastStableOffsetNeverLagsSendsNothingMore() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, 100);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 110, 2_000_000L, 110);
    timelines.flushAll(sink);
    assertThat(out).containsExactly("t-0@5 appends=[] commits=[0-99@1000, 100-109@2000]");
  }

  @Test
  void fromTheFirstLagTheLastStableOffsetsAdvancesAreRanges() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, 100);
    // A transaction opened at 100: its records are committed, not stable.
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 110, 2_000_000L, 100);
    // Its marker (110) is appended and then committed: 100-110 become stable at 3 ms.
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 111, 3_000_000L, 111);
    // Later advances of the same partition keep being reported, lag or not.
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 115, 4_000_000L, 115);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[] commits=[0-99@1000, 100-109@2000, 110-110@3000, 111-114@4000]"
                + " stables=[100-110@3000, 111-114@4000] stableFrom=100");
    out.clear();
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 116, 5_000_000L, 116);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[] commits=[115-115@5000] stables=[115-115@5000] stableFrom=100");
  }

  @Test
  void aLastStableOffsetReadAfterALaterAdvanceIsCappedAtTheHighWatermark() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, 90);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 110, 2_000_000L, 120);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[] commits=[0-99@1000, 100-109@2000] stables=[90-109@2000]"
                + " stableFrom=90");
  }

  @Test
  void aNewTermOfATransactionalPartitionTracksItsStableOffsetsFromItsFirstAdvance() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.sinkForEpochChanges(sink);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, 90);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 6, -1, 105, 2_000_000L, 95);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 6, -1, 107, 3_000_000L, 107);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[] commits=[0-99@1000] stables=[] stableFrom=90",
            // Below 95 the first advance of term 6 made every offset stable with it.
            "t-0@6 appends=[] commits=[0-104@2000, 105-106@3000] stables=[95-106@3000]"
                + " stableFrom=95");
  }

  @Test
  void afterLostEventsTheLastStableOffsetOnlySetsWhereTheFollowingRangeStarts() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, 90);
    timelines.forgetHighWatermarks();
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 105, 2_000_000L, 100);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 106, 3_000_000L, 106);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[] commits=[0-99@1000, 105-105@3000] stables=[100-105@3000]"
                + " stableFrom=90");
  }

  @Test
  void aNewLeaderEpochFlushesTheOldTermAndLearnsTheHighWatermarkAgain() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 0);
    timelines.sinkForEpochChanges(sink);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.APPEND, "t-0", 5, 100, 104, 1_500_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 105, 2_000_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 6, -1, 107, 3_000_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.APPEND, "t-0", 6, 107, 107, 3_500_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 6, -1, 108, 4_000_000L, RequestTimes.UNKNOWN);
    // A late event of the old term is dropped, never read as the new term's.
    timelines.event(EventRing.APPEND, "t-0", 5, 105, 106, 4_100_000L, RequestTimes.UNKNOWN);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[100-104@1500] commits=[0-99@1000, 100-104@2000]",
            "t-0@6 appends=[107-107@3500] commits=[0-106@3000, 107-107@4000]");
    assertThat(timelines.dropped()).isEqualTo(1);
  }

  @Test
  void partitionsBeyondTheLimitAreDroppedAndCounted() {
    PartitionTimelines timelines = new PartitionTimelines(1, 100, 0);
    timelines.event(EventRing.APPEND, "t-0", 1, 0, 0, 1_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.APPEND, "t-1", 1, 0, 0, 1_000L, RequestTimes.UNKNOWN);
    assertThat(timelines.partitions()).isEqualTo(1);
    assertThat(timelines.dropped()).isEqualTo(1);
  }

  @Test
  void rangesBeyondThePerPartitionLimitAreDroppedAndCounted() {
    PartitionTimelines timelines = new PartitionTimelines(10, 16, 0);
    for (int i = 0; i < 20; i++) {
      timelines.event(
          EventRing.APPEND, "t-0", 1, i * 10, i * 10 + 5, i * 1_000_000L, RequestTimes.UNKNOWN);
    }
    assertThat(timelines.dropped()).isEqualTo(4);
  }

  @Test
  void aBurstsArraysAreReleasedAfterTheExportAndSmallOnesKept() {
    RangeList list = new RangeList(1024, 0);
    for (int i = 0; i < 200; i++) {
      list.add(i * 10, i * 10 + 5, i);
    }
    assertThat(list.capacity()).isGreaterThanOrEqualTo(200);
    list.drainPacked();
    assertThat(list.capacity()).isZero();
    list.add(0, 1, 1);
    list.drainPacked();
    assertThat(list.capacity()).isBetween(1, RangeList.KEPT_CAPACITY);
  }

  @Test
  void aCommitRangeNamesTheFollowerWhoseFetchMovedTheHighWatermark() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 1_000);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 100, 1_000_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, 2, 110, 2_000_000L, RequestTimes.UNKNOWN);
    // Within the same tick, but another follower's fetch: not joined.
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, 3, 120, 2_100_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, 3, 130, 2_200_000L, RequestTimes.UNKNOWN);
    // The leader alone (an append, an ISR shrink): no follower.
    timelines.event(EventRing.HIGH_WATERMARK, "t-0", 5, -1, 131, 5_000_000L, RequestTimes.UNKNOWN);
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[] commits=[0-99@1000<-none, 100-109@2000<-2,"
                + " 110-129@2100..2200<-3, 130-130@5000<-none]");
  }

  @Test
  void anAppendRangeCarriesTheLongestRequestTimesOfTheBatchesItJoins() {
    PartitionTimelines timelines = new PartitionTimelines(10, 100, 1_000);
    timelines.event(EventRing.APPEND, "t-0", 5, 0, 9, 10_100_000L, RequestTimes.pack(300, 20));
    timelines.event(EventRing.APPEND, "t-0", 5, 10, 19, 10_600_000L, RequestTimes.pack(40, 90));
    // Off a request thread (a coordinator's write): unknown, and it joins nothing known.
    timelines.event(EventRing.APPEND, "t-0", 5, 20, 29, 11_100_000L, RequestTimes.UNKNOWN);
    timelines.event(EventRing.APPEND, "t-0", 5, 30, 39, 12_100_000L, RequestTimes.pack(0, 7));
    timelines.flushAll(sink);
    assertThat(out)
        .containsExactly(
            "t-0@5 appends=[0-19@10100..10600 q300/l90, 20-29@11100 q-1/l-1, 30-39@12100 q0/l7]"
                + " commits=[]");
  }

  @Test
  void appendsWhoseRequestsAreAllUnknownSendNoRequestTimes() {
    RangeList list = new RangeList(10, 0);
    list.addAppend(0, 9, 1, -1, -1);
    list.add(10, 19, 2);
    assertThat(list.packedRequests()).isNull();
    list.addAppend(20, 29, 3, 5, -1);
    byte[] packed = list.packedRequests();
    assertThat(BrokerProbeWire.decodeRequests(packed, 0, packed.length))
        .containsExactly(-1, -1, -1, -1, 5, -1);
    list.drainPacked();
    list.add(0, 1, 4);
    assertThat(list.packedRequests()).isNull();
  }

  private static String ranges(RangeList list) {
    byte[] requests = list.packedRequests();
    long[] byRequest =
        requests == null ? null : BrokerProbeWire.decodeRequests(requests, 0, requests.length);
    byte[] followers = list.packedFollowers();
    byte[] packed = list.drainPacked();
    int[] byRange =
        followers == null ? null : BrokerProbeWire.decodeFollowers(followers, 0, followers.length);
    List<String> ranges = new ArrayList<>();
    BrokerProbeWire.decodeRanges(
        packed,
        0,
        packed.length,
        (first, last, earliest, latest) ->
            ranges.add(
                first
                    + "-"
                    + last
                    + "@"
                    + (earliest == latest ? "" : earliest + "..")
                    + latest
                    + (byRange == null ? "" : follower(byRange[ranges.size()]))
                    + (byRequest == null ? "" : request(byRequest, ranges.size()))));
    return ranges.toString();
  }

  private static String request(long[] times, int range) {
    return " q" + times[2 * range] + "/l" + times[2 * range + 1];
  }

  private static String follower(int id) {
    return "<-" + (id == BrokerProbeWire.NO_FOLLOWER ? "none" : Integer.toString(id));
  }
}
