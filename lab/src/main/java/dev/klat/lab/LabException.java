package dev.klat.lab;

/** A failure the lab explains to the user in one sentence, without a stack trace. */
final class LabException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LabException(String message) {
    super(message);
  }
}
