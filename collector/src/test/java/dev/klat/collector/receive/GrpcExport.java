package dev.klat.collector.receive;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A raw OTLP/gRPC export, the body as given, on the receiver's own method descriptor. */
public final class GrpcExport {
  private GrpcExport() {}

  /** What the receiver answered: its headers (empty on an error), trailers and status. */
  public record Answer(Metadata headers, Metadata trailers, Status status) {}

  public static Answer traces(io.grpc.Channel channel, byte[] body) throws Exception {
    return export(channel, OtlpGrpcReceiver.TRACE_SERVICE, body);
  }

  /** A raw OTLP/gRPC metrics export. */
  public static Answer metrics(io.grpc.Channel channel, byte[] body) throws Exception {
    return export(channel, OtlpGrpcReceiver.METRICS_SERVICE, body);
  }

  private static Answer export(io.grpc.Channel channel, String service, byte[] body)
      throws Exception {
    CompletableFuture<Answer> done = new CompletableFuture<>();
    Metadata[] headers = {new Metadata()};
    ClientCall<byte[], byte[]> call =
        channel.newCall(OtlpGrpcReceiver.exportMethod(service), CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onHeaders(Metadata h) {
            headers[0] = h;
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            done.complete(new Answer(headers[0], trailers, status));
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(body);
    call.halfClose();
    return done.get(30, TimeUnit.SECONDS);
  }
}
