package dev.klat.collector.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Files that are read together (a certificate and its key; a tokens file) and read again when their
 * content changes. Content, not modification time, tells a change: the files are small, and a
 * Kubernetes secret swapped by symbolic link, or a file rewritten within the same second, changes
 * neither size nor time reliably. A new content that does not load (a half-written pair, a syntax
 * error) leaves the loaded one in use, is logged once and counted; the next change is tried again.
 *
 * @param <T> what the files load into
 */
final class WatchedFiles<T> {
  private static final Logger LOG = Logger.getLogger(WatchedFiles.class.getName());

  /** Turns the files' contents (in the order of the paths) into what is used. */
  interface Loader<T> {
    T load(List<byte[]> contents) throws Exception;
  }

  private final String setting;
  private final List<Path> paths;
  private final Loader<T> loader;
  private final Consumer<T> install;
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong reloads = new AtomicLong();
  private byte[] loadedDigest;
  private String lastFailure;

  /**
   * Reads and loads the files once.
   *
   * @param setting the key that names them, for messages and the failure counter
   * @throws IllegalArgumentException naming the setting when they cannot be read or loaded
   */
  WatchedFiles(String setting, List<Path> paths, Loader<T> loader, Consumer<T> install) {
    this.setting = setting;
    this.paths = List.copyOf(paths);
    this.loader = loader;
    this.install = install;
    List<byte[]> contents;
    try {
      contents = read();
      install.accept(loader.load(contents));
    } catch (Exception e) {
      throw new IllegalArgumentException(setting + " " + describe() + ": " + message(e), e);
    }
    loadedDigest = digest(contents);
  }

  /** Reads the files and, if they changed since the last good load, loads them. */
  synchronized void reloadIfChanged() {
    String failure;
    try {
      List<byte[]> contents = read();
      byte[] digest = digest(contents);
      if (MessageDigest.isEqual(digest, loadedDigest)) {
        lastFailure = null;
        return;
      }
      try {
        install.accept(loader.load(contents));
        loadedDigest = digest;
        lastFailure = null;
        reloads.incrementAndGet();
        LOG.info(setting + ": loaded the changed " + describe());
        return;
      } catch (Exception e) {
        // Keyed by content too: the same message for another bad content is a new failure.
        failure = message(e) + " #" + java.util.HexFormat.of().formatHex(digest, 0, 8);
      }
    } catch (IOException e) {
      failure = message(e);
    }
    if (!failure.equals(lastFailure)) {
      lastFailure = failure;
      failures.incrementAndGet();
      LOG.warning(
          setting
              + ": cannot load the changed "
              + describe()
              + ", keeping the one loaded before: "
              + failure.replaceAll(" #[0-9a-f]+$", ""));
    }
  }

  /** The setting that names these files. */
  String setting() {
    return setting;
  }

  /** Changed contents that could not be loaded (each counted once). */
  long failures() {
    return failures.get();
  }

  /** Changed contents loaded since the start. */
  long reloads() {
    return reloads.get();
  }

  private List<byte[]> read() throws IOException {
    List<byte[]> contents = new ArrayList<>(paths.size());
    for (Path p : paths) {
      if (Files.size(p) > MAX_FILE_BYTES) {
        throw new IOException(p + " is over " + MAX_FILE_BYTES + " bytes");
      }
      contents.add(Files.readAllBytes(p));
    }
    return contents;
  }

  /** Certificates, keys and token lists are small; a larger file is a wrong path. */
  static final long MAX_FILE_BYTES = 1024 * 1024;

  private String describe() {
    List<String> names = new ArrayList<>();
    paths.forEach(p -> names.add(p.toString()));
    return String.join(" and ", names);
  }

  private static String message(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static byte[] digest(List<byte[]> contents) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (byte[] c : contents) {
        sha.update(java.nio.ByteBuffer.allocate(4).putInt(c.length).array());
        sha.update(c);
      }
      return sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
