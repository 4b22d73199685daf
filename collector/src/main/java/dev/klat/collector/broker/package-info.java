/**
 * The brokers, read on the collector's own threads: discovery through the Kafka admin client,
 * scrapes of each broker's {@code kafka.network} RequestMetrics and {@code ReplicaManager} gauges
 * (JMX exporter or JMX, with credentials and TLS when configured), interval means derived from the
 * all-time means, {@code /api/brokers}' JSON, and the lock-free views the broker-instant sources
 * and the diagnosis read ({@code BrokerTimings} and {@code Replicas}, declared in {@code
 * correlate.instants}).
 */
package dev.klat.collector.broker;
