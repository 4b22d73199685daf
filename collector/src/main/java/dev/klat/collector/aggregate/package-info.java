/** Merged agent metrics, the collector's breakdown histograms and the recent breakdowns. */
package dev.klat.collector.aggregate;
