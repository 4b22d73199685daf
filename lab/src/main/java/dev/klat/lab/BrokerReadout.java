package dev.klat.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the lab's collector reads from the user's brokers, in one line from its {@code
 * /api/brokers}: the brokers whose request metrics it reads, and why it cannot read the others.
 */
final class BrokerReadout {

  private static final ObjectMapper JSON = new ObjectMapper();

  private BrokerReadout() {}

  static String describe(String brokersJson) {
    JsonNode root;
    try {
      root = JSON.readTree(brokersJson);
    } catch (IOException e) {
      return "the brokers' request metrics: the collector's /api/brokers was not JSON";
    }
    List<String> up = new ArrayList<>();
    List<String> down = new ArrayList<>();
    for (JsonNode broker : root.path("brokers")) {
      String id = broker.path("nodeId").asText();
      if (broker.path("up").asBoolean(false)) {
        up.add(id + " (" + broker.path("source").asText("?") + ")");
      } else {
        String error = broker.path("lastError").asText("");
        down.add("broker " + id + ": " + (error.isEmpty() ? "not read yet" : error));
      }
    }
    JsonNode discovery = root.path("discovery");
    if (up.isEmpty() && down.isEmpty()) {
      String error = discovery.path("lastError").asText("");
      return "the brokers' request metrics: no broker discovered"
          + (error.isEmpty() ? "" : " (" + error + ")")
          + "; commit is bounded by the acks, not estimated";
    }
    StringBuilder line =
        new StringBuilder("the brokers' request metrics: read from ")
            .append(up.size())
            .append(" of ")
            .append(up.size() + down.size())
            .append(" brokers");
    if (!up.isEmpty()) {
      line.append(", ").append(String.join(", ", up));
    }
    if (!down.isEmpty()) {
      line.append("; ")
          .append(String.join("; ", down))
          .append(" (records led by these get no estimate of commit from them)");
    }
    return line.toString();
  }
}
