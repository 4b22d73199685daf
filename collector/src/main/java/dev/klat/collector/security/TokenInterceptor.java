package dev.klat.collector.security;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/** gRPC's side of {@link TokenFilter}: UNAUTHENTICATED without an accepted bearer token. */
final class TokenInterceptor implements ServerInterceptor {
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String listener;
  private final BearerTokens tokens;
  private final AuthCounts counts;

  TokenInterceptor(String listener, BearerTokens tokens, AuthCounts counts) {
    this.listener = listener;
    this.tokens = tokens;
    this.counts = counts;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    BearerTokens.Check check = tokens.check(headers.get(AUTHORIZATION));
    counts.add(listener, check);
    if (check.accepted()) {
      return next.startCall(call, headers);
    }
    call.close(
        Status.UNAUTHENTICATED.withDescription(
            check.result().id
                + " token: send authorization: Bearer <token>, a token of "
                + tokens.setting()),
        new Metadata());
    return new ServerCall.Listener<>() {};
  }
}
