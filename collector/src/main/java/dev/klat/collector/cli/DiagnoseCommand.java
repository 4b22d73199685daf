package dev.klat.collector.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.diagnose.DiagnosisReport;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code ./klat diagnose}: asks a running collector's {@code /api/diagnosis} and prints the
 * findings. Exit status 0 with an answer (findings or not), 1 when the collector cannot answer, 2
 * for a bad argument.
 */
public final class DiagnoseCommand {
  static final String USAGE =
      "usage: ./klat diagnose [--collector http://HOST:PORT] [--topic T] [--group G]"
          + " [--window 10m]";
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private DiagnoseCommand() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns its exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("collector", "http://127.0.0.1:9464");
    options.put("window", "10m");
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg.startsWith("--") ? arg.substring(2) : null;
      String value = null;
      if (name != null && name.contains("=")) {
        value = name.substring(name.indexOf('=') + 1);
        name = name.substring(0, name.indexOf('='));
      } else if (name != null && i + 1 < args.length) {
        value = args[++i];
      }
      if (name == null || value == null || !isOption(name)) {
        err.println("klat diagnose: bad argument " + arg);
        err.println(USAGE);
        return 2;
      }
      options.put(name, value);
    }
    String url = url(options);
    try {
      HttpResponse<String> response =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(5))
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                  HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        err.println(
            "klat diagnose: "
                + url
                + " answered "
                + response.statusCode()
                + ": "
                + response.body());
        return response.statusCode() == 400 ? 2 : 1;
      }
      DiagnosisReport report = JSON.readValue(response.body(), DiagnosisReport.class);
      out.print(
          DiagnosisText.render(
              options.get("topic"), options.get("group"), options.get("window"), report));
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("klat diagnose: bad collector address " + options.get("collector"));
      return 2;
    } catch (IOException e) {
      err.println("klat diagnose: no answer from " + url + ": " + e);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private static boolean isOption(String name) {
    return name.equals("collector")
        || name.equals("topic")
        || name.equals("group")
        || name.equals("window");
  }

  static String url(Map<String, String> options) {
    StringBuilder url = new StringBuilder(options.get("collector").replaceAll("/+$", ""));
    url.append("/api/diagnosis?window=").append(encode(options.get("window")));
    if (options.containsKey("topic")) {
      url.append("&topic=").append(encode(options.get("topic")));
    }
    if (options.containsKey("group")) {
      url.append("&group=").append(encode(options.get("group")));
    }
    return url.toString();
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
