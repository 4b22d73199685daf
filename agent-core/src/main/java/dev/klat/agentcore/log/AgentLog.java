package dev.klat.agentcore.log;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The agents' only logger, the client agent's and the broker probe's. It writes one line per
 * message to standard error, never to standard output (which belongs to the application), in the
 * form
 *
 * <pre>
 * [klat-agent] 2025-01-31T12:00:00.000Z WARN message
 * </pre>
 *
 * <p>The time is UTC in ISO-8601 with milliseconds. Line breaks inside a message are escaped, so
 * that one call is always one line. No method throws: every failure, including a closed or broken
 * stream, is swallowed, because the agent must never hurt the application it runs in.
 *
 * <p>Anything that can repeat while the application runs (export failures, dropped spans) must use
 * {@link #warnOnce} or {@link #warnThrottled} with a constant key, never {@link #warn}.
 *
 * <p>Use {@link #global()} everywhere in an agent. It starts at level {@link Level#INFO} so that it
 * can be used before the configuration is read; the agent's configuration ({@code
 * AgentConfig.load}, the probe's {@code BrokerProbe.premain}) then sets its level from {@code
 * klat.log.level}. Tests create their own instance with a captured stream and a fake clock.
 *
 * <p>Thread-safe.
 */
public final class AgentLog {

  /** Severity of a message and threshold of a logger; a logger prints levels up to its own. */
  public enum Level {
    /** As a logger level: print nothing at all, not even configuration errors. */
    OFF,
    /** Something failed and klat does less than it should (for example, an invalid config). */
    ERROR,
    /** Something is unexpected but klat carries on (unknown key, dropped spans). */
    WARN,
    /** Startup and shutdown; the default. */
    INFO,
    /** Details for troubleshooting; not for production. */
    DEBUG;

    /** Parses {@code off}, {@code error}, {@code warn}, {@code info}, {@code debug}; else null. */
    public static Level parse(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      for (Level level : values()) {
        if (level.name().toLowerCase(Locale.ROOT).equals(v)) {
          return level;
        }
      }
      return null;
    }
  }

  /** {@value} ms: a throttled message key prints at most once per this period. */
  public static final long THROTTLE_PERIOD_MILLIS = 60_000L;

  /**
   * Keys are meant to be constants in the code; this bounds memory should someone pass dynamic
   * keys. Past it, new keys share one throttle.
   */
  static final int MAX_KEYS = 1024;

  private static final String OVERFLOW_KEY = "klat.agent-log.key-overflow";
  private static final String PREFIX = "[klat-agent] ";
  // Created when the agent's classes load, that is in premain, before the application can
  // redirect System.err into its own logging (which might be instrumented and log back to us).
  private static final AgentLog GLOBAL = new AgentLog(Level.INFO, System.err, null);

  private final PrintStream out;

  /**
   * Null for {@link System#currentTimeMillis()}: a method reference would cost premain a lambda.
   */
  private final LongSupplier clockMillis;

  private volatile Level level;
  private final Set<String> onceKeys = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, Throttle> throttles = new ConcurrentHashMap<>();

  /**
   * Creates a logger; the agent itself uses {@link #global()}, tests use this.
   *
   * @param level the initial level; null means {@link Level#INFO}
   * @param out where lines go; null means {@link System#err} as it is now
   * @param clockMillis the wall clock in milliseconds since the epoch, for the timestamp and for
   *     throttling; null means {@link System#currentTimeMillis()}
   */
  public AgentLog(Level level, PrintStream out, LongSupplier clockMillis) {
    this.level = level == null ? Level.INFO : level;
    PrintStream stream = out != null ? out : System.err;
    this.out = stream != null ? stream : new PrintStream(new DiscardingStream());
    this.clockMillis = clockMillis;
  }

  /**
   * The agent-wide logger, writing to standard error. Always the same instance, so it may be kept
   * in static fields; the agent's configuration changes its level in place.
   */
  public static AgentLog global() {
    return GLOBAL;
  }

  /** The current level. */
  public Level level() {
    return level;
  }

  /**
   * Sets the level; null is ignored. The agent's configuration calls this with {@code
   * klat.log.level}, so callers normally need not.
   */
  public void setLevel(Level newLevel) {
    if (newLevel != null) {
      level = newLevel;
    }
  }

  /** Whether a message of {@code messageLevel} would be printed now. */
  public boolean isEnabled(Level messageLevel) {
    Level current = level;
    return messageLevel != null
        && messageLevel != Level.OFF
        && current != Level.OFF
        && messageLevel.ordinal() <= current.ordinal();
  }

  /** Whether {@link #debug} prints; check it before building an expensive message. */
  public boolean isDebugEnabled() {
    return isEnabled(Level.DEBUG);
  }

  /** Logs at ERROR. */
  public void error(String message) {
    log(Level.ERROR, message);
  }

  /**
   * Logs at ERROR, on one line ending with {@code ": " + failure}; at DEBUG the stack trace
   * follows.
   */
  public void error(String message, Throwable failure) {
    try {
      if (!isEnabled(Level.ERROR)) {
        return;
      }
      write(Level.ERROR, nowMillis(), message + ": " + describe(failure));
      if (failure != null && isEnabled(Level.DEBUG)) {
        failure.printStackTrace(out);
      }
    } catch (Throwable ignored) {
      // Logging must never fail the caller.
    }
  }

  /**
   * Logs at WARN every time. Only for events that cannot repeat (startup); use {@link #warnOnce} or
   * {@link #warnThrottled} for anything else.
   */
  public void warn(String message) {
    log(Level.WARN, message);
  }

  /**
   * Logs at WARN the first time {@code key} is seen by this logger (once per JVM for {@link
   * #global()}); later calls with the same key print nothing. Calls made while WARN is disabled do
   * not use up the key.
   *
   * @param key a constant naming the condition, for example {@code "producer.headers-read-only"}
   */
  public void warnOnce(String key, String message) {
    try {
      if (!isEnabled(Level.WARN)) {
        return;
      }
      String k = key == null ? "" : key;
      if (onceKeys.contains(k)) {
        return;
      }
      if (onceKeys.size() >= MAX_KEYS) {
        warnThrottled(OVERFLOW_KEY, message);
        return;
      }
      if (onceKeys.add(k)) {
        write(Level.WARN, nowMillis(), message);
      }
    } catch (Throwable ignored) {
      // Logging must never fail the caller.
    }
  }

  /**
   * Logs at WARN at most once per {@value #THROTTLE_PERIOD_MILLIS} ms per {@code key}. Calls in
   * between are counted, and the next printed line ends with {@code (N similar messages suppressed
   * since <time>)}. Cheap enough to call per record: a map lookup and a compare.
   *
   * @param key a constant naming the condition, for example {@code "export.queue-full"}
   */
  public void warnThrottled(String key, String message) {
    try {
      if (!isEnabled(Level.WARN)) {
        return;
      }
      Throttle throttle = throttle(key == null ? "" : key);
      long nowMillis = nowMillis();
      long next = throttle.nextAllowedMillis.get();
      // The second test lets a wall clock that jumped back by more than a period print again.
      boolean due = nowMillis >= next || nowMillis < next - 2 * THROTTLE_PERIOD_MILLIS;
      if (due
          && throttle.nextAllowedMillis.compareAndSet(next, nowMillis + THROTTLE_PERIOD_MILLIS)) {
        long suppressed = throttle.suppressed.getAndSet(0);
        long since = throttle.lastPrintedMillis;
        throttle.lastPrintedMillis = nowMillis;
        String line =
            suppressed == 0
                ? message
                : message
                    + " ("
                    + suppressed
                    + (suppressed == 1 ? " similar message" : " similar messages")
                    + " suppressed since "
                    + formatTime(since)
                    + ")";
        write(Level.WARN, nowMillis, line);
      } else {
        throttle.suppressed.incrementAndGet();
      }
    } catch (Throwable ignored) {
      // Logging must never fail the caller.
    }
  }

  /** Logs at INFO. */
  public void info(String message) {
    log(Level.INFO, message);
  }

  /** Logs at DEBUG. */
  public void debug(String message) {
    log(Level.DEBUG, message);
  }

  /** Logs at {@code messageLevel}, for messages whose level is data (configuration problems). */
  public void log(Level messageLevel, String message) {
    try {
      if (isEnabled(messageLevel)) {
        write(messageLevel, nowMillis(), message);
      }
    } catch (Throwable ignored) {
      // Logging must never fail the caller.
    }
  }

  private Throttle throttle(String key) {
    Throttle existing = throttles.get(key);
    if (existing != null) {
      return existing;
    }
    String k = throttles.size() >= MAX_KEYS ? OVERFLOW_KEY : key;
    Throttle created = new Throttle();
    Throttle raced = throttles.putIfAbsent(k, created);
    return raced != null ? raced : created;
  }

  private void write(Level messageLevel, long nowMillis, String message) {
    String line =
        PREFIX + formatTime(nowMillis) + ' ' + messageLevel.name() + ' ' + oneLine(message);
    // PrintStream.println(String) is synchronized, so concurrent lines never interleave, and it
    // swallows IOExceptions (a closed stderr); the callers catch anything else.
    out.println(line);
  }

  private long nowMillis() {
    return clockMillis == null ? System.currentTimeMillis() : clockMillis.getAsLong();
  }

  private static String formatTime(long epochMillis) {
    return UtcTimestamp.format(epochMillis);
  }

  private static String describe(Throwable failure) {
    if (failure == null) {
      return "null";
    }
    try {
      return String.valueOf(failure);
    } catch (Throwable t) {
      // A broken toString()/getMessage() of an application exception.
      return failure.getClass().getName();
    }
  }

  /** {@code message} with its line breaks escaped, as every line of this log has it. */
  public static String oneLine(String message) {
    if (message == null) {
      return "null";
    }
    if (message.indexOf('\n') < 0 && message.indexOf('\r') < 0) {
      return message;
    }
    return message.replace("\r", "\\r").replace("\n", "\\n");
  }

  private static final class Throttle {
    final AtomicLong nextAllowedMillis = new AtomicLong(Long.MIN_VALUE);
    final AtomicLong suppressed = new AtomicLong();
    volatile long lastPrintedMillis;
  }

  private static final class DiscardingStream extends OutputStream {
    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }
}
