/**
 * Producer instrumentation: the instants S, D and A of every record, headers and spans for sampled
 * ones, tail spans for unsampled records whose {@code A - S} was above the topic's tail threshold,
 * and the every-record histograms; an output linked to the sampled records its thread consumed is
 * sampled and names them ({@code SendSampling.sendLinked}, {@code dev.klat.agent.link}). A
 * transactional producer's sampled spans wait for the end of their transaction ({@code
 * TransactionSpans}, {@code TransactionHooks}).
 */
package dev.klat.agent.producer;
