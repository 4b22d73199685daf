/**
 * The diagnosis: which knob or cause explains a window's p99 tail, from the tail's breakdowns, the
 * settings and batch figures the agents put on sampled spans, the brokers' request timings and the
 * broker probes' high-watermark waits. Holds the rules (one per segment), the report {@code
 * /api/diagnosis} answers and the {@code klat_diagnosis_tail_share} gauges. Pure logic, no I/O;
 * docs/diagnosis.md describes each rule. The {@code ./klat diagnose} client is in {@code cli}.
 */
package dev.klat.collector.diagnose;
