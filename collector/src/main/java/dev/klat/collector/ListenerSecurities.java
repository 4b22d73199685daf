package dev.klat.collector;

import dev.klat.collector.aggregate.Exposition;
import dev.klat.collector.security.AuthCounts;
import dev.klat.collector.security.BearerTokens;
import dev.klat.collector.security.ClientAuth;
import dev.klat.collector.security.ListenerSecurity;
import dev.klat.collector.security.ServerTls;
import dev.klat.model.TagKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The TLS and tokens of the collector's three listeners, from the {@code tls.*}, {@code
 * *.tls-client-auth} and {@code *.auth-tokens-file} settings: what each listener is given, the
 * thread that re-reads the files every {@link #RELOAD_INTERVAL_MS}, and their counts for {@code
 * /metrics}.
 */
final class ListenerSecurities implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ListenerSecurities.class.getName());

  /** How often the certificate, key, client CA and tokens files are looked at for a change. */
  static final long RELOAD_INTERVAL_MS = 5_000;

  static final String OTLP_HTTP = "otlp-http";
  static final String OTLP_GRPC = "otlp-grpc";
  static final String ADMIN = "admin";

  private final ServerTls tls;
  private final BearerTokens otlpTokens;
  private final BearerTokens adminTokens;
  private final AuthCounts counts = new AuthCounts();
  private final ListenerSecurity otlpHttp;
  private final ListenerSecurity otlpGrpc;
  private final ListenerSecurity admin;
  private final ScheduledExecutorService reloader;

  /**
   * Reads the files the settings name.
   *
   * @throws IllegalArgumentException naming the setting whose file cannot be read or loaded
   */
  ListenerSecurities(CollectorConfig config) {
    check(config);
    String cert = config.string("tls.cert-file").trim();
    tls =
        cert.isEmpty()
            ? null
            : ServerTls.load(
                Path.of(cert),
                Path.of(config.string("tls.key-file").trim()),
                optionalPath(config, "tls.client-ca-file"));
    otlpTokens = tokens(config, "otlp.auth-tokens-file");
    adminTokens = tokens(config, "admin.auth-tokens-file");
    ClientAuth otlpAuth = otlpClientAuth(config);
    ClientAuth adminAuth = ClientAuth.of(config.string("admin.tls-client-auth"));
    otlpHttp = new ListenerSecurity(OTLP_HTTP, tls, otlpAuth, otlpTokens, counts);
    otlpGrpc = new ListenerSecurity(OTLP_GRPC, tls, otlpAuth, otlpTokens, counts);
    admin = new ListenerSecurity(ADMIN, tls, adminAuth, adminTokens, counts);
    if (tls == null && otlpTokens == null && adminTokens == null) {
      reloader = null;
    } else {
      reloader =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "klat-tls-reload");
                t.setDaemon(true);
                return t;
              });
      reloader.scheduleWithFixedDelay(
          this::reloadIfChanged, RELOAD_INTERVAL_MS, RELOAD_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Checks the combination of the settings (not the files).
   *
   * @throws IllegalArgumentException naming the keys of a bad combination
   */
  static void check(CollectorConfig config) {
    boolean cert = !config.string("tls.cert-file").trim().isEmpty();
    boolean key = !config.string("tls.key-file").trim().isEmpty();
    boolean clientCa = !config.string("tls.client-ca-file").trim().isEmpty();
    if (cert != key) {
      throw new IllegalArgumentException(
          "tls.cert-file and tls.key-file go together: set both (TLS on) or neither");
    }
    if (clientCa && !cert) {
      throw new IllegalArgumentException(
          "tls.client-ca-file checks client certificates over TLS: set tls.cert-file and"
              + " tls.key-file too");
    }
    for (String authKey : new String[] {"otlp.tls-client-auth", "admin.tls-client-auth"}) {
      String mode = config.string(authKey).trim();
      if ((mode.equalsIgnoreCase("want") || mode.equalsIgnoreCase("need")) && !clientCa) {
        throw new IllegalArgumentException(
            authKey
                + "="
                + mode
                + " needs tls.client-ca-file, the CA client certificates chain to");
      }
    }
  }

  /** {@code otlp.tls-client-auth}, by default {@code need} when a client CA is set. */
  private static ClientAuth otlpClientAuth(CollectorConfig config) {
    String mode = config.string("otlp.tls-client-auth").trim();
    if (mode.isEmpty()) {
      return config.string("tls.client-ca-file").trim().isEmpty()
          ? ClientAuth.NONE
          : ClientAuth.NEED;
    }
    return ClientAuth.of(mode);
  }

  private static Path optionalPath(CollectorConfig config, String key) {
    String value = config.string(key).trim();
    return value.isEmpty() ? null : Path.of(value);
  }

  private static BearerTokens tokens(CollectorConfig config, String key) {
    Path path = optionalPath(config, key);
    return path == null ? null : BearerTokens.load(key, path);
  }

  ListenerSecurity otlpHttp() {
    return otlpHttp;
  }

  ListenerSecurity otlpGrpc() {
    return otlpGrpc;
  }

  ListenerSecurity admin() {
    return admin;
  }

  /** Reads every file again; what changed is used from the next handshake or request on. */
  void reloadIfChanged() {
    // An exception would cancel every later check: log it and go on.
    try {
      if (tls != null) {
        tls.reloadIfChanged();
      }
      if (otlpTokens != null) {
        otlpTokens.reloadIfChanged();
      }
      if (adminTokens != null) {
        adminTokens.reloadIfChanged();
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "checking the TLS and tokens files failed", e);
    }
  }

  /** {@code klat_collector_auth_requests_total}. */
  List<Exposition.Series> authSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    for (AuthCounts.Count c : counts.counts()) {
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(TagKeys.LISTENER, c.listener());
      labels.put(TagKeys.RESULT, c.result());
      labels.put(TagKeys.TOKEN, c.token());
      out.add(Exposition.Series.scalar(labels, c.count()));
    }
    return out;
  }

  /** {@code klat_collector_reload_failures_total}: one series per file setting in use. */
  List<Exposition.Series> reloadFailureSeries() {
    List<Exposition.Series> out = new ArrayList<>();
    if (tls != null) {
      tls.failures((setting, n) -> out.add(series(setting, n)));
    }
    if (otlpTokens != null) {
      out.add(series(otlpTokens.setting(), otlpTokens.failures()));
    }
    if (adminTokens != null) {
      out.add(series(adminTokens.setting(), adminTokens.failures()));
    }
    return out;
  }

  private static Exposition.Series series(String setting, long count) {
    return Exposition.Series.scalar(Map.of(TagKeys.SETTING, setting), count);
  }

  @Override
  public void close() {
    if (reloader != null) {
      reloader.shutdownNow();
    }
  }
}
