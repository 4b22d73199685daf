/**
 * The join of producer and consumer spans and the breakdown: pure logic, no I/O, injected clock.
 */
package dev.klat.collector.correlate;
