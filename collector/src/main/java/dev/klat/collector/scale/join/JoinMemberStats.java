package dev.klat.collector.scale.join;

/** A join member's counts since start, for {@code /api/stats}. */
public record JoinMemberStats(
    long spanRecordsRead,
    long spanRecordsMalformed,
    long metricRecordsRead,
    long metricRecordsMalformed,
    long breakdownsCounted,
    long breakdownsReplayed,
    long breakdownsHandedOver,
    long breakdownsCountedUncommitted,
    long commits,
    long commitsFailed,
    int spanPartitionsOwned,
    long millisSinceLastCommit) {}
