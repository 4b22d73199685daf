/**
 * The join role of a scaled-out collector (docs/scale-out.md): a consumer group member that reads
 * the span and metrics topics into this process's join and agent metrics, commits where it read
 * with a marker of what it has counted, so that a partition handed over is neither lost nor counted
 * twice, and a reader of the broker probes' topic, whole, in every member.
 */
package dev.klat.collector.scale.join;
