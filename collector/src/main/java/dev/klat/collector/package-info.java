/**
 * The klat collector: start-up ({@link Main}), configuration ({@link CollectorConfig}, the role and
 * the span topics), the counts of every part ({@link CollectorFigures}) and the wiring ({@link
 * Collector}) of receive, correlate, aggregate, diagnose and export, with broker, scale and
 * clienttelemetry (the clients' own figures pushed through the brokers, KIP-714).
 */
package dev.klat.collector;
