/** What leaves the collector: Prometheus exposition, the HTTP API and traces over OTLP. */
package dev.klat.collector.export;
