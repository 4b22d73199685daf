package dev.klat.collector.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.klat.collector.diagnose.DiagnosisReport;
import dev.klat.collector.diagnose.PipelineDiagnosis;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@code ./klat diagnose}: asks a running collector's {@code /api/diagnosis} and prints the
 * findings; with {@code --pipeline NAME}, those of one pipeline's slowest chains (the hop, the
 * segment and its knob, or the application whose processing it is). Exit status 0 with an answer
 * (findings or not), 1 when the collector cannot answer, 2 for a bad argument. With {@code
 * --token-file} it sends the file's token (the whole file, trimmed, as Prometheus's {@code
 * credentials_file}) as {@code Authorization: Bearer}; with {@code --ca-file} it trusts the CA
 * certificates of that PEM file for an {@code https} collector instead of the JVM's.
 */
public final class DiagnoseCommand {
  static final String USAGE =
      "usage: ./klat diagnose [--collector http(s)://HOST:PORT] [--topic T] [--group G]"
          + " [--pipeline NAME] [--window 10m] [--token-file FILE] [--ca-file CA.pem]";
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
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    try {
      if (options.containsKey("ca-file")) {
        client.sslContext(trusting(Path.of(options.get("ca-file"))));
      }
      if (options.containsKey("token-file")) {
        request.header("Authorization", "Bearer " + token(Path.of(options.get("token-file"))));
      }
    } catch (IOException | GeneralSecurityException e) {
      err.println("klat diagnose: " + e.getMessage());
      return 2;
    }
    try {
      HttpResponse<String> response =
          client.build().send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        err.println(
            "klat diagnose: "
                + url
                + " answered "
                + response.statusCode()
                + ": "
                + response.body()
                + (response.statusCode() == 401
                    ? " (give a token of its admin.auth-tokens-file with --token-file)"
                    : ""));
        return response.statusCode() == 400 ? 2 : 1;
      }
      if (options.containsKey("pipeline")) {
        PipelineDiagnosis pipeline = JSON.readValue(response.body(), PipelineDiagnosis.class);
        out.print(DiagnosisText.renderPipeline(options.get("window"), pipeline));
        return 0;
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

  /** The token in {@code file}: its whole content, trimmed. */
  static String token(Path file) throws IOException {
    String token = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (token.isEmpty() || token.chars().anyMatch(Character::isWhitespace)) {
      throw new IOException(
          "--token-file " + file + " must hold one token (no spaces or line breaks)");
    }
    return token;
  }

  /** A TLS context trusting the CA certificates of a PEM file. */
  static SSLContext trusting(Path caFile) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    int i = 0;
    try (InputStream in = Files.newInputStream(caFile)) {
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, c);
      }
    } catch (IOException e) {
      throw new IOException("--ca-file: cannot read " + caFile + ": " + e.getMessage(), e);
    }
    if (i == 0) {
      throw new GeneralSecurityException("--ca-file " + caFile + " holds no PEM certificate");
    }
    TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
    trust.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }

  private static boolean isOption(String name) {
    return name.equals("collector")
        || name.equals("token-file")
        || name.equals("ca-file")
        || name.equals("topic")
        || name.equals("group")
        || name.equals("pipeline")
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
    if (options.containsKey("pipeline")) {
      url.append("&pipeline=").append(encode(options.get("pipeline")));
    }
    return url.toString();
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
