package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the lines klat needs from a Prometheus text-format (0.0.4) scrape of a broker's JMX
 * exporter: {@code kafka_network_requestmetrics_<phase>_count} and {@code _mean} with a {@code
 * request} label, and the ReplicaManager gauges {@code kafka_server_replicamanager_leadercount},
 * {@code _partitioncount} and {@code _underminisrpartitioncount}, the ISR change counters {@code
 * kafka_server_replicamanager_isrshrinks_total} and {@code _isrexpands_total}, and the follower
 * side's {@code kafka_server_replicafetchermanager_maxlag} (all optional: older rules files lack
 * them), as the rules of {@code deploy/jmx-exporter/kafka-broker.yaml} name them (lowercased).
 * Other families are skipped unread, so a broker's many JVM and topic series cost one name
 * comparison each; the lines klat reads are parsed strictly, because a value read wrong would
 * silently skew every estimate that uses it.
 */
final class ExporterText {

  /** A scrape klat cannot trust. */
  static final class MalformedException extends IOException {
    private static final long serialVersionUID = 1L;

    MalformedException(int line, String message) {
      super("line " + line + ": " + message);
    }
  }

  // A RequestMetrics count or mean (gauge -1), or one broker-wide value (phase null).
  private record Target(Phase phase, boolean count, int gauge) {}

  private static final int LEADERS = 0;
  private static final int PARTITIONS = 1;
  private static final int UNDER_MIN_ISR = 2;
  private static final int ISR_SHRINKS = 3;
  private static final int ISR_EXPANDS = 4;
  private static final int MAX_LAG = 5;
  private static final int BROKER_WIDE = 6;
  private static final int REQUEST_SLOTS = Phase.REQUESTS.length * Phase.ALL.length * 2;
  private static final Map<String, Target> TARGETS = new HashMap<>();

  static {
    for (Phase phase : Phase.ALL) {
      TARGETS.put(phase.exporterName + "_count", new Target(phase, true, -1));
      TARGETS.put(phase.exporterName + "_mean", new Target(phase, false, -1));
    }
    TARGETS.put("kafka_server_replicamanager_leadercount", new Target(null, false, LEADERS));
    TARGETS.put("kafka_server_replicamanager_partitioncount", new Target(null, false, PARTITIONS));
    TARGETS.put(
        "kafka_server_replicamanager_underminisrpartitioncount",
        new Target(null, false, UNDER_MIN_ISR));
    TARGETS.put(
        "kafka_server_replicamanager_isrshrinks_total", new Target(null, false, ISR_SHRINKS));
    TARGETS.put(
        "kafka_server_replicamanager_isrexpands_total", new Target(null, false, ISR_EXPANDS));
    TARGETS.put("kafka_server_replicafetchermanager_maxlag", new Target(null, false, MAX_LAG));
  }

  private ExporterText() {}

  /**
   * Parses a scrape into {@code into}.
   *
   * @throws MalformedException for a line of the families klat reads that does not parse, or a
   *     series given twice
   */
  static void parse(BufferedReader in, Reading into) throws IOException {
    boolean[] seen = new boolean[REQUEST_SLOTS + BROKER_WIDE];
    String line;
    int number = 0;
    while ((line = in.readLine()) != null) {
      number++;
      int i = skipBlanks(line, 0);
      if (i == line.length() || line.charAt(i) == '#') {
        continue;
      }
      int nameEnd = i;
      while (nameEnd < line.length() && isNameChar(line.charAt(nameEnd), nameEnd == i)) {
        nameEnd++;
      }
      Target target = TARGETS.get(line.substring(i, nameEnd));
      if (target == null) {
        continue;
      }
      new Line(line, number, nameEnd).read(target, into, seen);
    }
  }

  private static boolean isNameChar(char c, boolean first) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || c == '_'
        || c == ':'
        || (!first && c >= '0' && c <= '9');
  }

  private static int skipBlanks(String s, int i) {
    while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  /** One sample line of a family klat reads; {@code pos} walks it. */
  private static final class Line {
    private final String s;
    private final int number;
    private int pos;

    Line(String s, int number, int pos) {
      this.s = s;
      this.number = number;
      this.pos = pos;
    }

    void read(Target target, Reading into, boolean[] seen) throws MalformedException {
      String requestLabel = null;
      int labelsAt = skipBlanks(s, pos);
      if (labelsAt < s.length() && s.charAt(labelsAt) == '{') {
        pos = labelsAt + 1;
        Map<String, String> labels = labels();
        requestLabel = labels.get("request");
      }
      if (pos == s.length() || (s.charAt(pos) != ' ' && s.charAt(pos) != '\t')) {
        throw fail("expected a blank before the value");
      }
      pos = skipBlanks(s, pos);
      int valueStart = pos;
      while (pos < s.length() && s.charAt(pos) != ' ' && s.charAt(pos) != '\t') {
        pos++;
      }
      double value = number(s.substring(valueStart, pos));
      pos = skipBlanks(s, pos);
      if (pos < s.length()) {
        int timestampStart = pos;
        while (pos < s.length() && s.charAt(pos) != ' ' && s.charAt(pos) != '\t') {
          pos++;
        }
        String timestamp = s.substring(timestampStart, pos);
        if (!timestamp.matches("-?[0-9]+")) {
          throw fail("bad timestamp " + timestamp);
        }
        if (skipBlanks(s, pos) != s.length()) {
          throw fail("unexpected text after the timestamp");
        }
      }
      if (target.gauge() >= 0) {
        gauge(target.gauge(), value, into, seen);
        return;
      }
      if (requestLabel == null) {
        throw fail("no request label");
      }
      Request request = Phase.request(requestLabel);
      if (request == null) {
        return; // a request kind klat does not read (the rules may keep more)
      }
      int slot =
          (request.ordinal() * Phase.ALL.length + target.phase().ordinal()) * 2
              + (target.count() ? 0 : 1);
      if (seen[slot]) {
        throw fail("second series for request=" + requestLabel);
      }
      seen[slot] = true;
      if (target.count()) {
        if (Double.isNaN(value)) {
          return; // left missing
        }
        into.count(request, target.phase(), wholeNumber(value));
      } else if (Double.isFinite(value)) {
        into.meanMs(request, target.phase(), value);
      }
    }

    // A broker-wide count or lag: one series, a whole number; NaN leaves it missing.
    private void gauge(int gauge, double value, Reading into, boolean[] seen)
        throws MalformedException {
      if (seen[REQUEST_SLOTS + gauge]) {
        throw fail("second series of a broker-wide value");
      }
      seen[REQUEST_SLOTS + gauge] = true;
      if (Double.isNaN(value)) {
        return;
      }
      long count = wholeNumber(value);
      switch (gauge) {
        case LEADERS -> into.leaders(count);
        case PARTITIONS -> into.partitions(count);
        case UNDER_MIN_ISR -> into.underMinIsr(count);
        case ISR_SHRINKS -> into.isrShrinks(count);
        case ISR_EXPANDS -> into.isrExpands(count);
        default -> into.maxLagMessages(count);
      }
    }

    private long wholeNumber(double value) throws MalformedException {
      if (value < 0 || value != Math.rint(value) || value >= 0x1p53) {
        throw fail("a count must be a whole number >= 0: " + value);
      }
      return (long) value;
    }

    private Map<String, String> labels() throws MalformedException {
      Map<String, String> labels = new HashMap<>();
      while (true) {
        pos = skipBlanks(s, pos);
        if (pos >= s.length()) {
          throw fail("unterminated label set");
        }
        if (s.charAt(pos) == '}') {
          pos++;
          return labels;
        }
        int nameStart = pos;
        while (pos < s.length() && isLabelChar(s.charAt(pos), pos == nameStart)) {
          pos++;
        }
        if (pos == nameStart) {
          throw fail("bad label name");
        }
        String name = s.substring(nameStart, pos);
        pos = skipBlanks(s, pos);
        if (pos >= s.length() || s.charAt(pos) != '=') {
          throw fail("expected = after label " + name);
        }
        pos = skipBlanks(s, pos + 1);
        if (pos >= s.length() || s.charAt(pos) != '"') {
          throw fail("expected a quoted value for label " + name);
        }
        pos++;
        StringBuilder value = new StringBuilder();
        while (true) {
          if (pos >= s.length()) {
            throw fail("unterminated value of label " + name);
          }
          char c = s.charAt(pos++);
          if (c == '"') {
            break;
          }
          if (c == '\\') {
            if (pos >= s.length()) {
              throw fail("unterminated escape in label " + name);
            }
            char e = s.charAt(pos++);
            switch (e) {
              case '\\' -> value.append('\\');
              case '"' -> value.append('"');
              case 'n' -> value.append('\n');
              default -> throw fail("bad escape \\" + e + " in label " + name);
            }
          } else {
            value.append(c);
          }
        }
        if (labels.put(name, value.toString()) != null) {
          throw fail("label " + name + " given twice");
        }
        pos = skipBlanks(s, pos);
        if (pos < s.length() && s.charAt(pos) == ',') {
          pos++;
        } else if (pos >= s.length() || s.charAt(pos) != '}') {
          throw fail("expected , or } after label " + name);
        }
      }
    }

    private static boolean isLabelChar(char c, boolean first) {
      return (c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || c == '_'
          || (!first && c >= '0' && c <= '9');
    }

    // Go's ParseFloat, as Prometheus writes it: decimals with exponents, NaN, +Inf, -Inf. Java's
    // parseDouble alone would also take "1d", "0x1p3" and "Infinity", which no exporter writes.
    private double number(String text) throws MalformedException {
      switch (text) {
        case "NaN":
          return Double.NaN;
        case "+Inf":
        case "Inf":
          return Double.POSITIVE_INFINITY;
        case "-Inf":
          return Double.NEGATIVE_INFINITY;
        default:
          if (!text.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
            throw fail("bad value " + (text.isEmpty() ? "(none)" : text));
          }
          return Double.parseDouble(text);
      }
    }

    private MalformedException fail(String message) {
      return new MalformedException(number, message);
    }
  }
}
