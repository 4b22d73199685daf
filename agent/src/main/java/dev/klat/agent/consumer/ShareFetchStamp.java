package dev.klat.agent.consumer;

/**
 * {@code F} and {@code R} of the ShareFetch response that brought a partition's records, and the
 * request manager that handled it (whose acknowledgements' outcomes later name the same records).
 * Kept in the {@code klat$state} field of each {@code ShareCompletedFetch}; immutable, so that the
 * application thread reads what the network thread wrote without a lock.
 */
final class ShareFetchStamp {

  /** {@code F} and {@code R}; the share consumer's network thread reads responses as they come. */
  final FetchStamp fetch;

  /** The {@code ShareConsumeRequestManager} that handled the response; null when unknown. */
  final Object requestManager;

  ShareFetchStamp(FetchStamp fetch, Object requestManager) {
    this.fetch = fetch;
    this.requestManager = requestManager;
  }
}
