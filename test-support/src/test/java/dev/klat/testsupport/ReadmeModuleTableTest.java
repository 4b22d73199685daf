package dev.klat.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's module table ("What is here") has a row for every module of the root pom (for {@code
 * it-apps/spring-boot2}, the row of {@code it-apps/}), and no row for a folder that is not one, as
 * {@code MetricsDocTest} does for metrics.
 */
// README's module table against the modules: CI runs it on its first JDK only (JdkIndependent).
@Tag("jdk-independent")
class ReadmeModuleTableTest {

  private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
  private static final Pattern ROW = Pattern.compile("(?m)^\\| `([a-z0-9-]+)/` \\|");

  @Test
  void everyModuleOfTheRootPomHasItsRow() throws IOException {
    Set<String> rows = rows();
    for (String folder : moduleFolders()) {
      assertThat(rows).as("README.md's module table row for %s/", folder).contains(folder);
    }
  }

  @Test
  void everyRowThatNamesAModuleFolderIsAModule() throws IOException {
    Set<String> modules = moduleFolders();
    for (String row : rows()) {
      // Rows for folders that are not Maven modules are allowed when the folder exists and has
      // no pom (deploy/, docs/): the table says what is here, not only what Maven builds.
      Path folder = ROOT.resolve(row);
      assertThat(folder).as("README.md's row %s/ names a folder that exists", row).isDirectory();
      if (Files.exists(folder.resolve("pom.xml"))) {
        assertThat(modules)
            .as("%s/ has a pom but is not in the root pom's modules", row)
            .contains(row);
      }
    }
  }

  private static Set<String> moduleFolders() throws IOException {
    String pom = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
    Set<String> folders = new LinkedHashSet<>();
    Matcher m = MODULE.matcher(pom);
    while (m.find()) {
      folders.add(m.group(1).split("/")[0]);
    }
    assertThat(folders).as("modules of the root pom").hasSizeGreaterThan(10);
    return folders;
  }

  private static Set<String> rows() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    String table = readme.substring(readme.indexOf("## What is here"));
    Set<String> rows = new LinkedHashSet<>();
    Matcher m = ROW.matcher(table);
    while (m.find()) {
      rows.add(m.group(1));
    }
    return rows;
  }
}
