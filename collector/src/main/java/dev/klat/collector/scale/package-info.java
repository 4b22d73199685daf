/**
 * The ingest role of a scaled-out collector: OTLP requests split per trace and written to the span
 * topics that the join role reads (docs/scale-out.md).
 */
package dev.klat.collector.scale;
