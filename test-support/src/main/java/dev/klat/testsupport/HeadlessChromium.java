package dev.klat.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium, headless, on one page: its DOM after the scripts ran, or a screenshot. The
 * flags keep it off the network that this machine does not reach (without them Chromium's own
 * background connections are refused, many at a time), and each run gets a new profile under the
 * work folder, where {@code chromium.log} keeps what it printed on stderr.
 */
public final class HeadlessChromium {

  private static final long RUN_TIMEOUT_SECONDS = 90;

  private final Path executable;
  private final Path workDir;
  private final int widthPx;
  private final int heightPx;
  private final long virtualTimeBudgetMs;

  private HeadlessChromium(
      Path executable, Path workDir, int widthPx, int heightPx, long virtualTimeBudgetMs) {
    this.executable = executable;
    this.workDir = workDir;
    this.widthPx = widthPx;
    this.heightPx = heightPx;
    this.virtualTimeBudgetMs = virtualTimeBudgetMs;
  }

  /**
   * Chromium for the calling test, working in {@code workDir}, with a 1000 x 760 window and no
   * virtual time budget; when it is not installed, {@code skipped} (for example "DemoIT's browser
   * step") is skipped, or fails under {@code CI=true} ({@link RequiredTool}).
   */
  public static HeadlessChromium require(Path workDir, String skipped) {
    return new HeadlessChromium(RequiredTool.CHROMIUM.require(skipped), workDir, 1000, 760, 0);
  }

  /** The same browser with a window of {@code widthPx} x {@code heightPx}. */
  public HeadlessChromium windowPx(int widthPx, int heightPx) {
    return new HeadlessChromium(executable, workDir, widthPx, heightPx, virtualTimeBudgetMs);
  }

  /**
   * The same browser, letting the page's timers run for {@code budgetMs} of page time before it
   * reads the page (a live page that refreshes itself).
   */
  public HeadlessChromium virtualTimeBudgetMs(long budgetMs) {
    return new HeadlessChromium(executable, workDir, widthPx, heightPx, budgetMs);
  }

  /** The page's DOM, serialized after its scripts ran. */
  public String dumpDom(String url) throws IOException, InterruptedException {
    return run("--dump-dom", url);
  }

  /** A PNG screenshot of the page, written to {@code png}. */
  public void screenshot(String url, Path png) throws IOException, InterruptedException {
    run("--screenshot=" + png.toAbsolutePath(), url);
    if (!Files.isRegularFile(png) || Files.size(png) == 0) {
      throw new IllegalStateException(
          "chromium wrote no screenshot of " + url + " to " + png + ": see " + log());
    }
  }

  private String run(String action, String url) throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    Path profile = Files.createTempDirectory(workDir, "chromium-profile");
    List<String> command =
        new ArrayList<>(
            List.of(
                executable.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--window-size=" + widthPx + "," + heightPx));
    if (virtualTimeBudgetMs > 0) {
      command.add("--virtual-time-budget=" + virtualTimeBudgetMs);
    }
    command.add(action);
    command.add(url);
    Process browser =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(log().toFile()))
            .start();
    String out = new String(browser.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!browser.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      browser.destroyForcibly();
      throw new IllegalStateException(
          "chromium did not finish " + action + " of " + url + " in " + RUN_TIMEOUT_SECONDS + " s");
    }
    return out;
  }

  private Path log() {
    return workDir.resolve("chromium.log");
  }
}
