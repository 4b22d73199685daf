package dev.klat.it.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** One scrape of a broker's JMX exporter endpoint, in the Prometheus text format. */
final class BrokerMetrics {

  private final List<Sample> samples;

  private BrokerMetrics(List<Sample> samples) {
    this.samples = samples;
  }

  static BrokerMetrics scrape(URI endpoint) throws IOException, InterruptedException {
    return scrape(endpoint, Duration.ofSeconds(10));
  }

  static BrokerMetrics scrape(URI endpoint, Duration timeout)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(endpoint).timeout(timeout).build(),
                HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(endpoint + " answered HTTP " + response.statusCode());
    }
    return parse(response.body());
  }

  static BrokerMetrics parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      samples.add(Sample.parse(line));
    }
    return new BrokerMetrics(samples);
  }

  Set<String> names() {
    Set<String> names = new TreeSet<>();
    samples.forEach(sample -> names.add(sample.name));
    return names;
  }

  /**
   * The value of the one sample with this name whose labels include {@code labels}.
   *
   * @throws AssertionError if there is no such sample, or more than one
   */
  double value(String name, Map<String, String> labels) {
    List<Sample> matching = new ArrayList<>();
    for (Sample sample : samples) {
      if (sample.name.equals(name) && sample.labels.entrySet().containsAll(labels.entrySet())) {
        matching.add(sample);
      }
    }
    if (matching.size() != 1) {
      throw new AssertionError(
          matching.size() + " samples of " + name + labels + "; metrics are " + names());
    }
    return matching.get(0).value;
  }

  private static final class Sample {
    final String name;
    final Map<String, String> labels;
    final double value;

    private Sample(String name, Map<String, String> labels, double value) {
      this.name = name;
      this.labels = labels;
      this.value = value;
    }

    static Sample parse(String line) {
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      Map<String, String> labels = new LinkedHashMap<>();
      String name;
      int rest;
      if (brace >= 0 && brace < space) {
        name = line.substring(0, brace);
        int i = brace + 1;
        while (line.charAt(i) != '}') {
          int equals = line.indexOf('=', i);
          String key = line.substring(i, equals).trim();
          StringBuilder value = new StringBuilder();
          int j = equals + 2; // skip ="
          while (line.charAt(j) != '"') {
            char c = line.charAt(j);
            if (c == '\\') {
              j++;
              c = line.charAt(j) == 'n' ? '\n' : line.charAt(j);
            }
            value.append(c);
            j++;
          }
          labels.put(key, value.toString());
          i = j + 1;
          if (line.charAt(i) == ',') {
            i++;
          }
        }
        rest = i + 1;
      } else {
        name = line.substring(0, space);
        rest = space;
      }
      String[] fields = line.substring(rest).trim().split(" ");
      return new Sample(name, labels, Double.parseDouble(fields[0]));
    }
  }
}
