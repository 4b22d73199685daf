/**
 * The broker instants of a record, {@code L} (the leader appended it) and {@code H} (the high
 * watermark passed it), section 4 of the latency model: {@link BrokerInstants} asks its sources
 * best first, each instant separately: the broker probe, the {@code LogAppendTime} timestamp, a
 * partition with no follower, a consumer fetch that waited, the brokers' request metrics, and the
 * bounds {@code H <= A} and {@code H <= R}; and, for a transactional record read by a {@code
 * read_committed} group, {@code V} (section 9: the probe's last stable offset, the producer's
 * commit, {@code V <= R}); for a record with a side seen through an OpenTelemetry instrumentation
 * (section 10), the probe alone ({@link BrokerInstants#probedAppend}). Also the views of the
 * brokers the sources read, filled by {@code broker}: {@link BrokerTimings} (which the diagnosis
 * reads too) and {@link Replicas}. Pure logic, no I/O: the sources answer from memory under the
 * correlator's lock.
 */
package dev.klat.collector.correlate.instants;
