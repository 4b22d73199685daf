package dev.klat.collector.receive;

/** A request body that is not a valid OTLP message: answered with 400, never retried. */
public final class MalformedException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what the sender is told
   */
  public MalformedException(String message) {
    super(message, null, false, false);
  }
}
