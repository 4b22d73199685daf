package dev.klat.probe.telemetry;

/**
 * One client's push as the broker handed it over, copied out of the broker's buffers on the request
 * thread: the payload's bytes and what the request's context said about the client. The strings are
 * cut to {@link #MAX_LABEL_CHARS} there, so that a client id of a megabyte costs the queue no more
 * than a short one.
 */
final class Push {

  /** The longest client id, principal, address or software name or version forwarded. */
  static final int MAX_LABEL_CHARS = 256;

  final byte[] payload;
  final String clientInstanceId;
  final boolean terminating;
  final String clientId;
  final String principal;
  final String clientAddress;
  final String softwareName;
  final String softwareVersion;

  Push(
      byte[] payload,
      String clientInstanceId,
      boolean terminating,
      String clientId,
      String principal,
      String clientAddress,
      String softwareName,
      String softwareVersion) {
    this.payload = payload;
    this.clientInstanceId = cut(clientInstanceId);
    this.terminating = terminating;
    this.clientId = cut(clientId);
    this.principal = cut(principal);
    this.clientAddress = cut(clientAddress);
    this.softwareName = cut(softwareName);
    this.softwareVersion = cut(softwareVersion);
  }

  /** What the push holds in the queue's byte budget: its payload and about its strings. */
  long bytes() {
    return payload.length + 256L;
  }

  private static String cut(String value) {
    if (value == null) {
      return null;
    }
    return value.length() <= MAX_LABEL_CHARS ? value : value.substring(0, MAX_LABEL_CHARS);
  }
}
