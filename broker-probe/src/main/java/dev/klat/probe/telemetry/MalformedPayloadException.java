package dev.klat.probe.telemetry;

/** A pushed payload that is not the protobuf it should be; it is dropped and counted. */
final class MalformedPayloadException extends Exception {

  private static final long serialVersionUID = 1L;

  MalformedPayloadException(String message) {
    // No stack trace: a hostile client could push these at will, and the message says it all.
    super(message, null, false, false);
  }
}
