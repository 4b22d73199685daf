package dev.klat.testsupport;

/**
 * CI runs every test on JDK 17, then again on JDK 25 ({@code .ci/run}); the second pass is there
 * for what the JDK can change: the agent's and the broker probe's woven bytecode in JVMs started
 * with that JDK, the collector and the lab running on it, its TLS. A test whose outcome cannot
 * depend on the JDK that runs Maven (a browser rendering a page, Prometheus and promtool, Node.js,
 * a docs table, a pure text or JSON check) is tagged {@code @Tag("jdk-independent")} and runs in
 * the first pass only: with {@code -Dklat.test.skip-jdk-independent=true} the root pom's profile of
 * that name excludes the tag in Surefire and Failsafe. A plain {@code ./klat test} runs everything.
 *
 * <p>The same property reaches the forked test JVMs: a long integration test may then run a short
 * variant ({@link #leftToFirstPass()}), where the long one's extra phases check only what the
 * collector computes from instants the short one already has the JDK produce. Each such test says
 * in its javadoc what it leaves to the first pass and why.
 */
public final class JdkIndependent {

  /** The JUnit tag; a string constant, so that {@code @Tag(JdkIndependent.TAG)} compiles too. */
  public static final String TAG = "jdk-independent";

  /** The Maven property and test JVM system property of the second pass. */
  public static final String SKIP_PROPERTY = "klat.test.skip-jdk-independent";

  private JdkIndependent() {}

  /**
   * Whether this run leaves the JDK-independent tests, and the JDK-independent phases of long
   * tests, to the first pass.
   */
  public static boolean leftToFirstPass() {
    return Boolean.getBoolean(SKIP_PROPERTY);
  }
}
