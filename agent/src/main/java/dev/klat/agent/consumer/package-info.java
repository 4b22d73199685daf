/**
 * Consumer instrumentation: the instants F, R and P of every record a consumer returns, spans for
 * sampled records, and the every-record histograms and lag gauges.
 */
package dev.klat.agent.consumer;
