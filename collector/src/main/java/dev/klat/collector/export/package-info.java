/**
 * What leaves the collector: Prometheus exposition (under {@code metrics.max-bytes}), the HTTP API
 * (the breakdowns, the diagnosis, the pipelines, ...) with liveness ({@code /healthz}) and
 * readiness ({@code /readyz}), and traces over OTLP.
 */
package dev.klat.collector.export;
