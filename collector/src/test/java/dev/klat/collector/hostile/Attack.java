package dev.klat.collector.hostile;

/**
 * One hostile client, run on a thread of its own beside the honest stream until it has done its
 * harm or {@code untilNanos} ({@link System#nanoTime()}) has passed. What it saw goes to {@code
 * log} (one line per outcome kind, for the failure message); what the collector must survive is
 * checked by the suite, not by the attack. To add one: a static method of this shape, and a line in
 * {@link HostileIT#attacks()}.
 */
@FunctionalInterface
interface Attack {
  void run(HostileCollector target, long untilNanos, Outcomes log) throws Exception;
}
