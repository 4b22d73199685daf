package dev.klat.agent.config;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Decides which topics klat instruments: a topic is instrumented when it fully matches {@code
 * klat.topics.include} and does not fully match {@code klat.topics.exclude}.
 *
 * <p>Called per record, so decisions are cached per topic and each regex runs once per topic. The
 * cache holds at most {@value #MAX_CACHED_TOPICS} topics (applications with more topics than that
 * are rare, and a bound keeps a topic-per-tenant application from growing the heap); past it,
 * further topics are evaluated on every call. Thread-safe; never throws.
 *
 * <p>The patterns are compiled when the first topic is evaluated, not when the agent starts: the
 * configuration has checked that they compile, and an application start should not pay for the
 * regex engine before it has a topic.
 */
public final class TopicFilter {

  /** {@value}: the most topics whose decision is cached. */
  public static final int MAX_CACHED_TOPICS = 10_000;

  private final String includeRegex;
  private final String excludeRegex;
  // Compiled on first use; a race compiles the same pattern twice, which is harmless.
  private volatile Pattern include;
  private volatile Pattern exclude;
  private final int maxCachedTopics;
  private final ConcurrentHashMap<String, Boolean> decisions = new ConcurrentHashMap<>();
  // Counted once per topic (decisions are cached), so an AtomicLong is enough; a LongAdder cost
  // premain its classes.
  private final AtomicLong evaluations = new AtomicLong();

  /**
   * @param include topics to instrument, matched against the whole topic name
   * @param exclude topics not to instrument even if included, matched against the whole name
   */
  public TopicFilter(Pattern include, Pattern exclude) {
    this(include, exclude, MAX_CACHED_TOPICS);
  }

  TopicFilter(Pattern include, Pattern exclude, int maxCachedTopics) {
    this(include.pattern(), exclude.pattern(), maxCachedTopics);
    this.include = include;
    this.exclude = exclude;
  }

  /**
   * A filter that compiles its regular expressions when it first evaluates a topic.
   *
   * @param includeRegex topics to instrument, matched against the whole topic name; must compile
   * @param excludeRegex topics not to instrument even if included; must compile
   */
  static TopicFilter ofRegex(String includeRegex, String excludeRegex) {
    return new TopicFilter(includeRegex, excludeRegex, MAX_CACHED_TOPICS);
  }

  private TopicFilter(String includeRegex, String excludeRegex, int maxCachedTopics) {
    if (includeRegex == null || excludeRegex == null) {
      throw new NullPointerException("include and exclude patterns are required");
    }
    this.includeRegex = includeRegex;
    this.excludeRegex = excludeRegex;
    this.maxCachedTopics = maxCachedTopics;
  }

  /** Whether records of {@code topic} are instrumented; false for null. */
  public boolean accepts(String topic) {
    if (topic == null) {
      return false;
    }
    Boolean cached = decisions.get(topic);
    if (cached != null) {
      return cached;
    }
    boolean decision = evaluate(topic);
    // size() is only read on a miss, which happens once per topic while the cache has room.
    if (decisions.size() < maxCachedTopics) {
      decisions.putIfAbsent(topic, decision);
    }
    return decision;
  }

  private boolean evaluate(String topic) {
    evaluations.incrementAndGet();
    try {
      return include().matcher(topic).matches() && !exclude().matcher(topic).matches();
    } catch (Throwable t) {
      // A pathological regex (stack overflow on backtracking): not instrumenting is the safe side.
      return false;
    }
  }

  /** The include pattern ({@code klat.topics.include}), compiled now if it was not yet. */
  public Pattern include() {
    Pattern p = include;
    if (p == null) {
      p = Pattern.compile(includeRegex);
      include = p;
    }
    return p;
  }

  /** The exclude pattern ({@code klat.topics.exclude}), compiled now if it was not yet. */
  public Pattern exclude() {
    Pattern p = exclude;
    if (p == null) {
      p = Pattern.compile(excludeRegex);
      exclude = p;
    }
    return p;
  }

  /** {@code klat.topics.include} as written. */
  public String includeRegex() {
    return includeRegex;
  }

  /** {@code klat.topics.exclude} as written. */
  public String excludeRegex() {
    return excludeRegex;
  }

  int cachedTopicCount() {
    return decisions.size();
  }

  long evaluations() {
    return evaluations.get();
  }

  @Override
  public String toString() {
    return "include=" + includeRegex + " exclude=" + excludeRegex;
  }
}
