/**
 * Broker request timings: scraping each broker's {@code kafka.network} RequestMetrics (JMX exporter
 * or JMX) and its {@code ReplicaManager} partition counts, interval means derived from the all-time
 * means, and the lock-free {@code BrokerTimings} the correlator and the diagnosis read.
 */
package dev.klat.collector.broker;
