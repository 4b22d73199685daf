/**
 * The clock every instant an agent reports is on: {@link dev.klat.agentcore.clock.WallClock}, the
 * wall clock read once and advanced with {@link System#nanoTime()}, and {@link
 * dev.klat.agentcore.clock.TimeSource}, the same clocks injected so that tests can fix them. The
 * offset of this clock from the collector's is measured on the exports ({@code
 * dev.klat.agentcore.otlp.ClockSync}).
 */
package dev.klat.agentcore.clock;
