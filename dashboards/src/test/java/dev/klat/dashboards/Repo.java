package dev.klat.dashboards;

import java.nio.file.Path;
import java.nio.file.Paths;

/** Paths in the repository, from the {@code klat.root} property Maven sets. */
final class Repo {
  private Repo() {}

  static Path root() {
    return Paths.get(System.getProperty("klat.root", "..")).toAbsolutePath().normalize();
  }

  static Path path(String relative) {
    return root().resolve(relative);
  }
}
