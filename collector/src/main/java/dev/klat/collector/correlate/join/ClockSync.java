package dev.klat.collector.correlate.join;

/**
 * An agent's measurement of its clock against the collector's, from the resource of its export, for
 * {@link Correlator#offerClockSync}.
 *
 * @param instanceId the agent's instance id, naming its clock domain
 * @param offsetNanos {@code clock(collector) - clock(agent)}
 * @param uncertaintyNanos the half-width of the interval, at least 0
 */
public record ClockSync(long instanceId, long offsetNanos, long uncertaintyNanos)
    implements JoinInput {}
