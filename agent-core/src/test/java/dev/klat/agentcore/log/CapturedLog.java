package dev.klat.agentcore.log;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link AgentLog} writing into memory, with a clock the test moves. Public for the client
 * agent's configuration tests, which read what it logs.
 */
public final class CapturedLog {

  /** 2025-01-31T12:00:00.000Z. */
  public static final long START_MILLIS = 1_738_324_800_000L;

  public final AtomicLong nowMillis = new AtomicLong(START_MILLIS);
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  public final AgentLog log;

  public CapturedLog() {
    this(AgentLog.Level.INFO);
  }

  public CapturedLog(AgentLog.Level level) {
    log = new AgentLog(level, new PrintStream(bytes, true, StandardCharsets.UTF_8), nowMillis::get);
  }

  public String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  public List<String> lines() {
    String text = text();
    return text.isEmpty() ? List.of() : Arrays.asList(text.split("\n"));
  }

  public List<String> lines(AgentLog.Level level) {
    return lines().stream().filter(l -> l.contains(" " + level.name() + " ")).toList();
  }

  public void advanceMillis(long millis) {
    nowMillis.addAndGet(millis);
  }
}
