package dev.klat.collector;

import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;

/** {@code java -jar klat-collector.jar [--key=value ...] [--config=file]}. */
public final class Main {
  private static final Logger LOG = Logger.getLogger(Main.class.getName());

  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println("usage: java -jar klat-collector.jar [--key=value ...] [--config=file]");
      System.out.println("settings, defaults and types (docs/collector.md):");
      for (CollectorKey key : CollectorKey.values()) {
        System.out.println(
            "  --"
                + key.setting.key()
                + "="
                + key.setting.defaultValue()
                + "  ("
                + key.setting.type()
                + ")");
      }
      return;
    }
    // A client that sends its request this slowly is cut off, so slow senders cannot hold every
    // connection (read once by the JDK's HTTP server; a -D flag given at start-up wins).
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "30");
    }
    CollectorConfig config;
    try {
      config = CollectorConfig.parse(args, System.getProperties(), System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("klat collector: " + e.getMessage());
      System.exit(2);
      return;
    }
    config.warnings().forEach(LOG::warning);
    Collector collector;
    try {
      collector = Collector.start(config);
    } catch (java.io.IOException e) {
      // "cannot listen on 127.0.0.1:4318 (otlp.http.port): address already in use"
      System.err.println("klat collector: " + e.getMessage());
      System.exit(1);
      return;
    } catch (IllegalArgumentException e) {
      // A TLS or tokens file that cannot be read or loaded, named by its setting.
      System.err.println("klat collector: " + e.getMessage());
      System.exit(2);
      return;
    }
    LOG.info(
        "klat collector ("
            + collector.mode().name().toLowerCase(java.util.Locale.ROOT)
            + ") listening: "
            + (collector.otlpAddress() == null
                ? ""
                : "OTLP/HTTP on " + collector.otlpAddress() + ", ")
            + (collector.grpcAddress() == null
                ? ""
                : "OTLP/gRPC on " + collector.grpcAddress() + ", ")
            + "metrics and API on "
            + collector.adminAddress());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  collector.close();
                  stopped.countDown();
                },
                "klat-shutdown"));
    stopped.await();
  }
}
