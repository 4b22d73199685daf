/**
 * Consumer instrumentation: the instants F, R and P of every record a consumer returns, spans for
 * sampled records and for the tail records it flags, and the every-record histograms and lag
 * gauges; the sampled records a thread takes from {@code ConsumerRecords}, for the link to what it
 * produces ({@code dev.klat.agent.link}, {@code RecordOrder}). Every span carries the consumer's
 * settings that explain its timing, among them its isolation level.
 */
package dev.klat.agent.consumer;
