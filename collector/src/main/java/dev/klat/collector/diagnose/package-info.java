/**
 * The diagnosis: which knob or cause explains a window's p99 tail, from the tail's breakdowns, the
 * settings and batch figures the agents put on sampled spans, and the brokers' request timings.
 * Pure logic, no I/O; docs/diagnosis.md describes each rule.
 */
package dev.klat.collector.diagnose;
