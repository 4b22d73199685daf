/**
 * The clock offsets between the hosts a record passes through (section 5 of the latency model): the
 * bounds every joined record gives, kept as windowed minima ({@link ClockOffsets}), the agents' and
 * broker probes' own measurements against the collector's clock ({@link CollectorSyncs}), and the
 * estimate with its uncertainty ({@link ClockOffset}); a record's bound that contradicts two
 * domains' own measurements by more than {@code clock.max-step} is not used ({@link
 * CollectorSyncs#allows}). Pure logic, no I/O; confined to the correlator's lock.
 */
package dev.klat.collector.correlate.clock;
