/**
 * A real Apache Kafka KRaft cluster, one JVM process per broker, for integration tests and the
 * demo.
 */
package dev.klat.kafka.cluster;
