package dev.klat.collector.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

/**
 * A password or token kept in a file, so that it is in no flag, environment variable or process
 * listing. Read at start-up (a missing, empty or oversized file fails it), and again when the
 * file's modification time changes, so that a rotated token (a Kubernetes service account's) is
 * picked up without a restart; a file that cannot be read again keeps the last value. Its text is
 * the file's content without surrounding white space. {@link #toString} names the file only.
 */
public final class SecretFile {
  /** A password or token file larger than this is a wrong path. */
  static final long MAX_BYTES = 64 * 1024;

  private final String setting;
  private final Path path;
  private FileTime modified;
  private String value;

  private SecretFile(String setting, Path path) {
    this.setting = setting;
    this.path = path;
  }

  /**
   * Reads the file {@code path} names, or returns null when {@code path} is empty.
   *
   * @throws IllegalArgumentException naming {@code setting} and the file, never its content
   */
  public static SecretFile read(String setting, String path) {
    String p = path.trim();
    if (p.isEmpty()) {
      return null;
    }
    SecretFile file = new SecretFile(setting, Path.of(p));
    try {
      file.load();
    } catch (IOException e) {
      throw new IllegalArgumentException(setting + ": cannot read " + p + ": " + e, e);
    }
    return file;
  }

  private void load() throws IOException {
    FileTime time = Files.getLastModifiedTime(path);
    long size = Files.size(path);
    if (size > MAX_BYTES) {
      throw new IOException(size + " bytes, more than " + MAX_BYTES + " for a password or token");
    }
    String text = Files.readString(path, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      throw new IOException("the file is empty");
    }
    value = text;
    modified = time;
  }

  /** The secret, read again if the file changed since. */
  public synchronized String value() {
    try {
      if (!Files.getLastModifiedTime(path).equals(modified)) {
        load();
      }
    } catch (IOException e) {
      // Being rewritten, or gone for a moment: the last value is still the best guess.
    }
    return value;
  }

  @Override
  public String toString() {
    return setting + " (" + path + ")";
  }
}
