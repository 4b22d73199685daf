/**
 * Producer instrumentation: the instants S, D and A of every record, headers and spans for sampled
 * ones, and the every-record histograms.
 */
package dev.klat.agent.producer;
