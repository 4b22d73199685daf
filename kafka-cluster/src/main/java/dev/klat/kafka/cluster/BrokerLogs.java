package dev.klat.kafka.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Reading broker logs back for failure reports. */
final class BrokerLogs {

  private BrokerLogs() {}

  /** The last {@code lines} lines of a log, or a note saying why there are none. */
  static String tail(Path file, int lines) {
    if (!Files.exists(file)) {
      return "(no log yet: " + file + ")";
    }
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }

  /** Log tails by node id, each under a heading. */
  static String describe(Map<Integer, String> tails) {
    StringBuilder out = new StringBuilder();
    tails.forEach(
        (nodeId, tail) ->
            out.append("----- broker ")
                .append(nodeId)
                .append(" (last lines) -----\n")
                .append(tail)
                .append('\n'));
    return out.toString();
  }
}
