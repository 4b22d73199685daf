package dev.klat.collector.correlate.join;

/**
 * What became of the record spans of OpenTelemetry instrumentations (section 10 of the latency
 * model), counted apart from klat's spans (the figures of {@link Correlator.Stats} count klat's
 * spans; {@code joined}, {@code evicted}, {@code clampedInstants} and {@code pendingRecords} count
 * every record).
 *
 * @param producerSpans producer spans offered
 * @param consumerSpans consumer spans offered
 * @param joined breakdowns of a joined pair with an instrumentation's span
 * @param producerOnly breakdowns of an instrumentation's producer span no group joined
 * @param consumerOnly breakdowns of an instrumentation's consumer span whose producer span did not
 *     come
 * @param withoutBrokerData spans left alone at their window's end without the probe's {@code L}: no
 *     breakdown (an instrumentation gives only {@code S}, or only {@code P})
 * @param invalid breakdowns whose instants could not form one
 * @param duplicates spans ignored because the same span of the same side was there
 * @param superseded instrumentations' spans not used because klat's agent reported the same side
 * @param agentAfterInstrumented klat's spans that arrived after the instrumentation's span of their
 *     side had joined: that breakdown stands, klat's span is ignored
 * @param placedAfterWaiting producer spans without an offset that a consumer span placed after they
 *     had waited
 * @param unplaced producer spans without an offset that no consumer span named within the window
 * @param evicted such producer spans that left before their window ended (entries or bytes full)
 * @param droppedSpans unjoined instrumentations' spans of records evicted from the join table
 * @param unplaceable consumer spans without a record (the receiver lets none through)
 * @param placementTopicMismatches producer spans a consumer span of another topic named
 * @param implausibleClockBounds records whose clock bound contradicted an agent's and a probe's own
 *     measurements, not used
 * @param waitingProducers producer spans without an offset waiting now
 * @param waitingBytes the estimated bytes of those and of the contexts consumer spans named
 */
public record InstrumentedStats(
    long producerSpans,
    long consumerSpans,
    long joined,
    long producerOnly,
    long consumerOnly,
    long withoutBrokerData,
    long invalid,
    long duplicates,
    long superseded,
    long agentAfterInstrumented,
    long placedAfterWaiting,
    long unplaced,
    long evicted,
    long droppedSpans,
    long unplaceable,
    long placementTopicMismatches,
    long implausibleClockBounds,
    int waitingProducers,
    long waitingBytes) {}
