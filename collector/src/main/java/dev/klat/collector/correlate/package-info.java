/**
 * Correlation: producer and consumer spans joined into breakdowns (sections 3 to 7 of the latency
 * model). Its parts are subpackages: {@code join} (the join and the breakdown, with their inputs
 * and output), {@code clock} (the clock offsets between hosts), {@code instants} (where the broker
 * instants {@code L} and {@code H} come from) and {@code probe} (what the broker probes reported).
 * All of it is pure logic with no I/O.
 */
package dev.klat.collector.correlate;
