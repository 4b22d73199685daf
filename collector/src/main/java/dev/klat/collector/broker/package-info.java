/**
 * Broker request timings: scraping each broker's {@code kafka.network} RequestMetrics (JMX exporter
 * or JMX), interval means derived from the all-time means, and the lock-free {@code BrokerTimings}
 * the correlator reads.
 */
package dev.klat.collector.broker;
