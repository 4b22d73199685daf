package dev.klat.dashboards;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the dashboards' JSON: {@code GenerateDashboards <directory>} (normally {@code
 * dashboards/grafana}). {@code GeneratedDashboardsTest} renders the same text and fails the build
 * when the committed files differ.
 */
public final class GenerateDashboards {
  private GenerateDashboards() {}

  /**
   * Renders every dashboard as the text committed under {@code dashboards/grafana}.
   *
   * @return file name to file content: two-space indented JSON with LF line ends, then a newline
   */
  public static Map<String, String> render() {
    // Fixed indentation and line ends, so that the text is the same on every machine.
    DefaultPrettyPrinter printer =
        new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"));
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : Dashboards.all().entrySet()) {
      try {
        out.put(
            e.getKey(),
            DashboardBuilder.JSON.writer(printer).writeValueAsString(e.getValue()) + "\n");
      } catch (IOException impossible) {
        throw new IllegalStateException(impossible);
      }
    }
    return out;
  }

  /**
   * Writes every dashboard into a directory.
   *
   * @param args the directory, default {@code dashboards/grafana}
   * @throws IOException if a file cannot be written
   */
  public static void main(String[] args) throws IOException {
    Path dir = Paths.get(args.length > 0 ? args[0] : "dashboards/grafana");
    Files.createDirectories(dir);
    for (Map.Entry<String, String> e : render().entrySet()) {
      Files.write(dir.resolve(e.getKey()), e.getValue().getBytes(StandardCharsets.UTF_8));
      System.out.println("wrote " + dir.resolve(e.getKey()));
    }
  }
}
