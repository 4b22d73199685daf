package dev.klat.collector.receive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.aggregate.AgentMetrics;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.collector.correlate.join.Correlator;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * OTLP/gRPC calls that never finish: at most the receiving budget's worth are held (one more is
 * refused at once), and each is cut off at the read timeout, which gives its place back.
 */
class GrpcLimitsTest {
  private final OtlpIngest ingest =
      new OtlpIngest(
          new Correlator(
              new Correlator.Settings(10_000_000_000L, 1000, 60_000_000_000L, 100),
              System::nanoTime,
              BrokerInstants.logAppendTime(),
              b -> {}),
          new AgentMetrics(100, 60_000_000_000L));

  @Test
  void callsThatNeverFinishAreBoundedAndCutOffAtTheReadTimeout() throws Exception {
    // Two bodies of the largest size may be arriving: two calls held, a third refused.
    ReceiverLimits limits = new ReceiverLimits(1 << 20, 1, 2 << 20, 1_000);
    try (OtlpGrpcReceiver grpc =
        new OtlpGrpcReceiver(new InetSocketAddress("127.0.0.1", 0), limits, ingest)) {
      // One channel per call: a connection allows only as many calls as may be held.
      ManagedChannel[] channels = new ManagedChannel[3];
      try {
        CompletableFuture<Status>[] closed = new CompletableFuture[3];
        long startNanos = System.nanoTime();
        for (int i = 0; i < 3; i++) {
          channels[i] =
              NettyChannelBuilder.forAddress("127.0.0.1", grpc.address().getPort())
                  .usePlaintext()
                  .build();
          closed[i] = hangingCall(channels[i]);
          if (i < 2) {
            Thread.sleep(200); // the first two are held before the third starts
          }
        }
        assertThat(closed[2].get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(closed[0].get(5, TimeUnit.SECONDS).getCode())
            .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(closed[1].get(5, TimeUnit.SECONDS).getCode())
            .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(System.nanoTime() - startNanos).isLessThan(TimeUnit.SECONDS.toNanos(4));
        assertThat(ingest.stats().requestsRejected())
            .containsEntry("receiving-full", 1L)
            .containsEntry("read-timeout", 2L);
        // Their places are back: an honest call is answered.
        assertThat(GrpcExport.traces(channels[0], new byte[0]).status().getCode())
            .isEqualTo(Status.Code.OK);
      } finally {
        for (ManagedChannel c : channels) {
          if (c != null) {
            c.shutdownNow();
          }
        }
      }
    }
  }

  private static CompletableFuture<Status> hangingCall(ManagedChannel channel) {
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            OtlpGrpcReceiver.exportMethod(OtlpGrpcReceiver.TRACE_SERVICE), CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(new byte[1000]); // and never half-closes
    return closed;
  }
}
