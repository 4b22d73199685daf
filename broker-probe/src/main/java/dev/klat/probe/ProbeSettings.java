package dev.klat.probe;

import dev.klat.agentcore.auth.ExportHeaders;
import dev.klat.agentcore.auth.ExportTls;
import dev.klat.agentcore.auth.Secrets;
import dev.klat.model.SettingNames;
import dev.klat.model.SettingValueException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The probe's configuration, from system properties {@code klat.*} or environment variables {@code
 * KLAT_*} (a system property wins), the way the client agent reads its own: values are trimmed and
 * an empty one counts as not set. The keys, types and defaults are {@link ProbeKey}'s, listed in
 * {@code docs/broker-probe.md}. A bad value, {@code klat.enabled=yes} too, is a {@link
 * SettingValueException} naming the key, which turns the probe off, never the broker. The export's
 * credentials are read as the client agent reads them: a header list is never quoted, nor the user
 * info of the endpoint. Public for the client telemetry forwarder ({@code
 * dev.klat.probe.telemetry}), which the broker loads from {@code metric.reporters} and which sends
 * with the same export settings.
 */
public final class ProbeSettings {

  public final boolean enabled;
  public final String endpoint;
  final String serviceName;
  final long exportIntervalMillis;
  final int queueSize;
  final long resolutionMicros;
  final int maxPartitions;
  final int maxRangesPerPartition;
  public final int clientTelemetryQueueSize;
  public final int clientTelemetryQueueBytes;
  public final boolean gzip;
  public final int timeoutMillis;
  public final String logLevel;
  public final Map<String, String> exportHeaders;

  /** The exporter's own TLS; null when no file is set (the JDK's defaults). */
  public final ExportTls exportTls;

  /** One line per old spelling read, naming the new key, and per doubtful export setting. */
  public final List<String> warnings;

  private ProbeSettings(Properties system, Map<String, String> environment) {
    List<String> oldSpellings = new ArrayList<>();
    String[] values = new String[ProbeKey.values().length];
    for (ProbeKey key : ProbeKey.values()) {
      values[key.ordinal()] = value(key, system, environment, oldSpellings);
    }
    enabled = bool(values, ProbeKey.ENABLED);
    endpoint =
        stripSlash(
            ProbeKey.ENDPOINT
                .setting
                .type()
                .urlValue(values[ProbeKey.ENDPOINT.ordinal()])
                .toString());
    exportHeaders = headers(values[ProbeKey.EXPORT_HEADERS.ordinal()]);
    exportTls =
        tls(
            values[ProbeKey.EXPORT_CERTIFICATE.ordinal()],
            values[ProbeKey.EXPORT_CLIENT_CERTIFICATE.ordinal()],
            values[ProbeKey.EXPORT_CLIENT_KEY.ordinal()]);
    warnAboutCredentials(oldSpellings);
    warnings = Collections.unmodifiableList(oldSpellings);
    serviceName = values[ProbeKey.SERVICE_NAME.ordinal()];
    exportIntervalMillis = millis(values, ProbeKey.EXPORT_INTERVAL);
    queueSize = integer(values, ProbeKey.QUEUE_SIZE);
    resolutionMicros = millis(values, ProbeKey.RESOLUTION) * 1000;
    maxPartitions = integer(values, ProbeKey.MAX_PARTITIONS);
    maxRangesPerPartition = integer(values, ProbeKey.MAX_RANGES_PER_PARTITION);
    clientTelemetryQueueSize = integer(values, ProbeKey.CLIENT_TELEMETRY_QUEUE_SIZE);
    clientTelemetryQueueBytes = integer(values, ProbeKey.CLIENT_TELEMETRY_QUEUE_BYTES);
    gzip = bool(values, ProbeKey.EXPORT_GZIP);
    timeoutMillis = (int) millis(values, ProbeKey.EXPORT_TIMEOUT);
    logLevel = ProbeKey.LOG_LEVEL.setting.type().choiceValue(values[ProbeKey.LOG_LEVEL.ordinal()]);
  }

  /**
   * Reads and checks every setting.
   *
   * @throws SettingValueException naming the first key with a bad value and what it must be
   */
  public static ProbeSettings load(Properties system, Map<String, String> environment) {
    return new ProbeSettings(system, environment);
  }

  /**
   * The checked value of {@code key}: the system property, else the environment variable (each
   * under its own name or an old spelling's), else the default.
   *
   * @throws SettingValueException naming the key, for a bad value
   */
  private static String value(
      ProbeKey key, Properties system, Map<String, String> environment, List<String> warnings) {
    String name = SettingNames.spellingIn(system, key.setting.key(), key.setting.oldKeys());
    String value = name == null ? null : nonEmpty(system.getProperty(name));
    SettingNames.addOldSpellingWarnings(
        system, "system property", key.setting.key(), key.setting.oldKeys(), warnings);
    String envName =
        SettingNames.spellingIn(environment, key.setting.envName(), key.setting.oldEnvNames());
    SettingNames.addOldSpellingWarnings(
        environment,
        "environment variable",
        key.setting.envName(),
        key.setting.oldEnvNames(),
        warnings);
    if (value == null && envName != null) {
      value = nonEmpty(environment.get(envName));
    }
    value = value == null ? key.setting.defaultValue() : value;
    try {
      key.setting.type().check(value);
    } catch (SettingValueException e) {
      throw e.forSetting(
          key.setting.key(), key == ProbeKey.ENDPOINT ? Secrets.redactUserInfo(value) : value);
    }
    return value;
  }

  /** A header list is a secret: an error says what is wrong with it, never what it holds. */
  private static Map<String, String> headers(String value) {
    try {
      return ExportHeaders.parse(value);
    } catch (SettingValueException e) {
      throw e.forSetting(ProbeKey.EXPORT_HEADERS.setting.key(), Secrets.describeHidden(value));
    }
  }

  private static ExportTls tls(String certificate, String clientCertificate, String clientKey) {
    try {
      return ExportTls.load(certificate, clientCertificate, clientKey);
    } catch (ExportTls.Invalid e) {
      throw e.problem().forSetting(e.setting(), e.path() == null ? "(not set)" : e.path());
    }
  }

  private void warnAboutCredentials(List<String> warnings) {
    boolean https = endpoint.regionMatches(true, 0, "https:", 0, 6);
    String shown = Secrets.redactUserInfo(endpoint);
    if (!https && exportTls != null) {
      warnings.add(
          "the TLS files of klat.export.* are not used: klat.endpoint=" + shown + " is not https");
    }
    boolean userInfo = !shown.equals(endpoint);
    if (!https && (userInfo || ExportHeaders.has(exportHeaders, "Authorization"))) {
      warnings.add("credentials go in clear text: klat.endpoint=" + shown + " is not https");
    }
    if (userInfo && ExportHeaders.has(exportHeaders, "Authorization")) {
      warnings.add(
          "the user info of klat.endpoint is not sent: klat.export.headers sets Authorization,"
              + " which wins");
    }
  }

  private static boolean bool(String[] values, ProbeKey key) {
    return key.setting.type().booleanValue(values[key.ordinal()]);
  }

  private static int integer(String[] values, ProbeKey key) {
    return key.setting.type().intValue(values[key.ordinal()]);
  }

  private static long millis(String[] values, ProbeKey key) {
    return key.setting.type().millisValue(values[key.ordinal()]);
  }

  private static String nonEmpty(String value) {
    return value == null || value.trim().isEmpty() ? null : value.trim();
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
