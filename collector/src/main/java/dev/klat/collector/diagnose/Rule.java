package dev.klat.collector.diagnose;

import dev.klat.collector.aggregate.TailRecord;
import java.util.List;

/**
 * One way a segment's tail can be explained; returns nothing when its evidence is absent. It is
 * given only the tail records it {@link #weighs}: those that know its segment (a partial tail
 * record of section 8 of the latency model that lacks it is skipped), or for a combined segment of
 * section 10 ({@code produce+publish}, {@code catch-up+fetch}), those that know only the combined
 * one. Each finding counts the records it weighed.
 */
interface Rule {
  /** Whether the rule weighs this tail record: it knows the segment the rule explains. */
  boolean weighs(TailRecord record);

  List<Finding> explain(TailEvidence tail);
}
