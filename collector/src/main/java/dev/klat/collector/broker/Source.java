package dev.klat.collector.broker;

import java.io.IOException;
import java.util.function.LongSupplier;

/** Where one broker's RequestMetrics are read from. Used by one scraping thread at a time. */
interface Source extends AutoCloseable {

  /** {@code exporter} or {@code jmx}. */
  String kind();

  /** The URL read, for reports. */
  String endpoint();

  /**
   * Reads every RequestMetrics count and mean klat needs; values the broker does not have stay
   * missing.
   *
   * @param epochNanos the wall clock, read before and after so that the reading is stamped with the
   *     middle of the scrape
   * @throws IOException when the broker cannot be reached, answers an error or something klat
   *     cannot parse
   */
  Reading read(LongSupplier epochNanos) throws IOException;

  /** Releases a connection kept between scrapes; never throws. */
  @Override
  void close();
}
