package dev.klat.collector.diagnose;

import java.util.List;

/** One way a segment's tail can be explained; returns nothing when its evidence is absent. */
interface Rule {
  List<Finding> explain(TailEvidence tail);
}
