/**
 * A scaled-out collector (docs/scale-out.md): {@link SpanTopics} creates, through the Kafka admin
 * client, the topics where its two roles meet. The ingest role is in {@code scale.ingest}, the join
 * role in {@code scale.join}.
 */
package dev.klat.collector.scale;
