/**
 * Consumer instrumentation: the instants F, R and P of every record a consumer returns, spans for
 * sampled records and for the tail records it flags, and the every-record histograms and lag
 * gauges. Every span carries the consumer's settings that explain its timing, among them its
 * isolation level. The sampled records a thread takes from {@code ConsumerRecords} are noted for
 * the link to what it produces ({@code dev.klat.agent.link}, {@code RecordOrder}). A share
 * consumer's ({@code KafkaShareConsumer}, {@code Share*} classes) every delivery gets F, R and P
 * the same way, and a sampled delivery's span waits for its acknowledgement's outcome ({@code
 * ShareDeliveries}).
 */
package dev.klat.agent.consumer;
