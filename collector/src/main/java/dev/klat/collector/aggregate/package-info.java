/**
 * What the collector keeps of the breakdowns and the agents' metrics: the merged agent metrics, the
 * breakdown histograms, the recent breakdowns with the summaries, tails, history and pipeline hop
 * records ({@link HopRecord}) read from them, and {@link Exposition}, the metric families {@code
 * /metrics} writes. Every label from the wire is capped, the rest folded into {@code _other} and
 * counted. No I/O.
 */
package dev.klat.collector.aggregate;
