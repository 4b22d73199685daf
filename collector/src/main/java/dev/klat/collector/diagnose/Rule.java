package dev.klat.collector.diagnose;

import dev.klat.model.Segment;
import java.util.List;

/**
 * One way a segment's tail can be explained; returns nothing when its evidence is absent. It is
 * given only the tail records that know {@link #segment()}: a partial tail record (section 8 of the
 * latency model) that lacks it is skipped, and each finding counts the records it weighed.
 */
interface Rule {
  /** The segment the rule explains, which every record it weighs knows. */
  Segment segment();

  List<Finding> explain(TailEvidence tail);
}
