package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings.Partitions;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import dev.klat.collector.correlate.instants.BrokerTimings.RequestTimings;
import java.util.List;
import java.util.Map;

/**
 * One broker as {@code /metrics} and {@code /api/brokers} report it.
 *
 * @param nodeId the broker's node id
 * @param discovered found by discovery rather than configured
 * @param sources the configured sources, {@code kind endpoint}, in the order they are tried
 * @param source the kind of the source of the last successful scrape, or null
 * @param up whether the last scrape succeeded and is at most the stale limit old
 * @param lastSuccessEpochNanos the last successful scrape, or -1
 * @param ageNanos since the last successful scrape (or since the broker was added, if none)
 * @param lastError why the last scrape failed, or null when it did not
 * @param scrapeErrors failed scrapes since the broker was added
 * @param restarts scrapes in which a count went down (the broker restarted)
 * @param latest the newest interval of each request kind that had requests (may be missing)
 * @param partitions the partition counts of the newest scrape (each -1 when it lacked them)
 */
public record BrokerStatus(
    int nodeId,
    boolean discovered,
    List<String> sources,
    String source,
    boolean up,
    long lastSuccessEpochNanos,
    long ageNanos,
    String lastError,
    long scrapeErrors,
    long restarts,
    Map<Request, RequestTimings> latest,
    Partitions partitions) {}
