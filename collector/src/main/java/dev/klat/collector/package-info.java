/**
 * The klat collector: start-up ({@link Main}), configuration ({@link CollectorConfig}, the role and
 * the span topics), the counts of every part ({@link CollectorFigures}) and the wiring ({@link
 * Collector}) of receive, correlate, aggregate, diagnose and export, with broker and scale.
 */
package dev.klat.collector;
