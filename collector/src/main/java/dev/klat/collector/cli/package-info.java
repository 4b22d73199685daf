/**
 * {@code ./klat diagnose}: a command-line client that asks a running collector's {@code
 * /api/diagnosis} over HTTP and prints the answer in a terminal. Not part of the collector's data
 * flow; it runs in its own JVM.
 */
package dev.klat.collector.cli;
