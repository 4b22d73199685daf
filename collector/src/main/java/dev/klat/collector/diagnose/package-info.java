/**
 * The diagnosis: which knob or cause explains a window's tail, from the tail's breakdowns (its tail
 * records and its sampled p99 tail; each rule weighs those that know its segment and each finding
 * says how many), the settings and batch figures the agents put on their spans, the brokers'
 * request timings and the broker probes' high-watermark waits. Records seen through an
 * OpenTelemetry instrumentation (section 10 of the latency model) are weighed against their own p99
 * and know {@code produce+publish} and {@code catch-up+fetch} only together: a rule for each names
 * what the leader's timings explain and what it cannot tell apart without klat's agent. A share
 * group's redelivered records (section 11) are weighed by {@code ShareRules}: a lock timeout, a
 * slow acknowledging application or releases, from each delivery's end. Holds the rules (one per
 * segment, one per combined segment), the report {@code /api/diagnosis} answers (and, for a
 * pipeline, {@link PipelineDiagnosis}: the hop and segment its slowest chains spent most in,
 * explained by that hop's own diagnosis) and the {@code klat_diagnosis_tail_share} gauges. Pure
 * logic, no I/O; docs/diagnosis.md describes each rule. The {@code ./klat diagnose} client is in
 * {@code cli}.
 */
package dev.klat.collector.diagnose;
