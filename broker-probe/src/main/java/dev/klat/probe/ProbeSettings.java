package dev.klat.probe;

import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The probe's configuration, from system properties {@code klat.*} or environment variables {@code
 * KLAT_*} (a system property wins), the way the client agent reads its own. The keys and their
 * defaults are listed in {@code docs/broker-probe.md}. A bad value is an error that turns the probe
 * off, never the broker.
 */
final class ProbeSettings {

  final boolean enabled;
  final String endpoint;
  final String serviceName;
  final long exportIntervalMillis;
  final int queueSize;
  final long resolutionMicros;
  final int maxPartitions;
  final int maxRangesPerPartition;
  final boolean gzip;
  final int timeoutMillis;
  final String logLevel;

  private ProbeSettings(Lookup lookup) {
    enabled = Boolean.parseBoolean(lookup.get("klat.enabled", "true"));
    endpoint = stripSlash(lookup.get("klat.endpoint", "http://127.0.0.1:4318"));
    serviceName = lookup.get("klat.service.name", "kafka-broker");
    exportIntervalMillis = millis(lookup, "klat.probe.export-interval", "200ms", 10, 10_000);
    // 32,768 slots keep each of the ring's arrays at 256 KiB, below half of G1's smallest region: a
    // 65,536-slot ring's 512 KiB long arrays each took a whole 1 MiB region on heaps under 2 GiB.
    queueSize = integer(lookup, "klat.probe.queue-size", "32768", 1024, 1 << 24);
    resolutionMicros = millis(lookup, "klat.probe.resolution", "1ms", 0, 1_000) * 1000;
    maxPartitions = integer(lookup, "klat.probe.max-partitions", "20000", 1, 10_000_000);
    maxRangesPerPartition =
        integer(lookup, "klat.probe.max-ranges-per-partition", "1024", 16, 1 << 20);
    // Off by default, unlike the agents: packed ranges are small and compress little, and a
    // Deflater per request costs the broker more CPU than the bytes it saves.
    gzip = Boolean.parseBoolean(lookup.get("klat.export.gzip", "false"));
    timeoutMillis = (int) millis(lookup, "klat.export.timeout", "10s", 100, 600_000);
    logLevel = lookup.get("klat.log.level", "info");
    if (!endpoint.startsWith("http://") && !endpoint.startsWith("https://")) {
      throw new IllegalArgumentException("klat.endpoint must be an http or https URL: " + endpoint);
    }
  }

  static ProbeSettings load(Properties system, Map<String, String> environment) {
    return new ProbeSettings(
        (key, fallback) -> {
          String value = system.getProperty(key);
          if (value == null) {
            value =
                environment.get(key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
          }
          return value == null || value.trim().isEmpty() ? fallback : value.trim();
        });
  }

  private interface Lookup {
    String get(String key, String fallback);
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private static int integer(Lookup lookup, String key, String fallback, int min, int max) {
    String value = lookup.get(key, fallback);
    try {
      int parsed = Integer.parseInt(value.replace("_", ""));
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // Falls through to the error, which names the key and the range.
    }
    throw new IllegalArgumentException(
        key + " must be an integer from " + min + " to " + max + ", got '" + value + "'");
  }

  // Durations as the client agent writes them: 250ms, 1s, 2m; a bare number is milliseconds.
  private static long millis(Lookup lookup, String key, String fallback, long min, long max) {
    String value = lookup.get(key, fallback).toLowerCase(Locale.ROOT);
    long factor = 1;
    String number = value;
    if (value.endsWith("ms")) {
      number = value.substring(0, value.length() - 2);
    } else if (value.endsWith("s")) {
      number = value.substring(0, value.length() - 1);
      factor = 1000;
    } else if (value.endsWith("m")) {
      number = value.substring(0, value.length() - 1);
      factor = 60_000;
    }
    try {
      long parsed = Long.parseLong(number.trim()) * factor;
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // Falls through to the error.
    }
    throw new IllegalArgumentException(
        key + " must be a duration from " + min + "ms to " + max + "ms, got '" + value + "'");
  }
}
