/**
 * The link between a consumed record and the records an application produces while processing it
 * (section 9 of the latency model): {@link dev.klat.agent.link.ThreadLinks}, one per thread, fed by
 * the consumer's {@code poll()} exit (the sampled records it returned) and by the {@code
 * ConsumerRecords} iterator hook ({@link dev.klat.agent.link.IterationCursor}: the records the
 * application took), read by the producer's {@code send()} hook; {@link
 * dev.klat.agent.link.ForwardedLinks}, JVM-wide, for applications that forward the input's trace
 * context in headers (Kafka Streams). Free of kafka-clients types, so that one copy serves both
 * hook packages in every class loader.
 */
package dev.klat.agent.link;
