package dev.klat.collector.correlate.join;

import java.util.List;

/**
 * The consumed records a producer span links its record to (section 9 of the latency model): the
 * first from its {@code klat.link.*} attributes, the others from its OTLP span links, at most
 * {@link #MAX_LINKS} read per span.
 *
 * @param links the links read, the first one first; never empty
 * @param count how many sampled inputs the agent linked ({@code klat.link.count}), at least {@code
 *     links.size()}
 * @param notRead span links beyond {@link #MAX_LINKS} (or malformed) that were not read
 */
public record RecordLinks(List<RecordLink> links, int count, int notRead) {
  /** The most links read from one span; the rest are counted in {@link #notRead}. */
  public static final int MAX_LINKS = 16;

  public RecordLinks {
    links = List.copyOf(links);
    if (links.isEmpty()) {
      throw new IllegalArgumentException("no link");
    }
    count = Math.max(count, links.size());
  }

  /** The first linked input, whose trace the output continues. */
  public RecordLink first() {
    return links.get(0);
  }
}
