/** The klat collector: start-up, configuration and wiring of receive, correlate and export. */
package dev.klat.collector;
