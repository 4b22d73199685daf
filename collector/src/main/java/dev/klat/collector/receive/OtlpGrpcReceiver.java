package dev.klat.collector.receive;

import dev.klat.collector.security.ListenerSecurity;
import dev.klat.model.ClockSyncHeaders;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * OTLP/gRPC: the {@code Export} methods of {@code TraceService} and {@code MetricsService}, with
 * the messages kept as bytes and decoded by the same code as OTLP/HTTP (no generated stubs, no
 * protobuf runtime). grpc-java applies {@code maxBodyBytes} to the decompressed message
 * (RESOURCE_EXHAUSTED above it) and handles {@code grpc-encoding: gzip}. A malformed message gets
 * INVALID_ARGUMENT; busy slots or a busy sink (a full join table, a full producer buffer) get
 * UNAVAILABLE, which OTLP clients retry.
 *
 * <p>Every answer carries the collector's wall clock at the call's start and at its answer ({@link
 * ClockSyncHeaders}, lower case): as response headers on success, as trailers on an error.
 */
public final class OtlpGrpcReceiver implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(OtlpGrpcReceiver.class.getName());
  static final String TRACE_SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService";
  static final String METRICS_SERVICE = "opentelemetry.proto.collector.metrics.v1.MetricsService";

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw Status.INTERNAL.withDescription("cannot read message").asRuntimeException();
          }
        }
      };

  private final Server server;
  private final RequestSlots slots;
  private static final Metadata.Key<String> RECEIVE_TIME =
      Metadata.Key.of(ClockSyncHeaders.RECEIVE_TIME_MICROS, Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> SEND_TIME =
      Metadata.Key.of(ClockSyncHeaders.SEND_TIME_MICROS, Metadata.ASCII_STRING_MARSHALLER);

  private final OtlpSink ingest;
  private final LongSupplier epochNanos;

  /**
   * Binds and starts the receiver, stamping answers with the system's wall clock.
   *
   * @throws IOException if the address cannot be bound
   */
  public OtlpGrpcReceiver(InetSocketAddress address, ReceiverLimits limits, OtlpSink ingest)
      throws IOException {
    this(address, limits, ingest, ListenerSecurity.PLAIN, SyncStamps.SYSTEM_EPOCH_NANOS);
  }

  /** As above, with TLS and tokens as {@code security} says. */
  public OtlpGrpcReceiver(
      InetSocketAddress address, ReceiverLimits limits, OtlpSink ingest, ListenerSecurity security)
      throws IOException {
    this(address, limits, ingest, security, SyncStamps.SYSTEM_EPOCH_NANOS);
  }

  /** Plain, on the given wall clock (nanoseconds since the epoch), for the tests. */
  OtlpGrpcReceiver(
      InetSocketAddress address, ReceiverLimits limits, OtlpSink ingest, LongSupplier epochNanos)
      throws IOException {
    this(address, limits, ingest, ListenerSecurity.PLAIN, epochNanos);
  }

  private OtlpGrpcReceiver(
      InetSocketAddress address,
      ReceiverLimits limits,
      OtlpSink ingest,
      ListenerSecurity security,
      LongSupplier epochNanos)
      throws IOException {
    this.ingest = ingest;
    this.epochNanos = epochNanos;
    this.slots = new RequestSlots(limits.maxConcurrentRequests(), "klat-otlp-grpc");
    // TLS and the token interceptor, when on, are the security's part of the server.
    this.server =
        security
            .grpc(NettyServerBuilder.forAddress(address))
            .executor(slots.executor())
            .maxInboundMessageSize(limits.maxBodyBytes())
            .addService(service(TRACE_SERVICE, true))
            .addService(service(METRICS_SERVICE, false))
            .build()
            .start();
  }

  /** The bound address, with the actual port. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getListenSockets().get(0);
  }

  private ServerServiceDefinition service(String name, boolean traces) {
    return ServerServiceDefinition.builder(name)
        .addMethod(exportMethod(name), handler(traces))
        .build();
  }

  /** A service's {@code Export} method, with the message as bytes: no generated stubs. */
  static MethodDescriptor<byte[], byte[]> exportMethod(String service) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(service, "Export"))
        .setRequestMarshaller(BYTES)
        .setResponseMarshaller(BYTES)
        .build();
  }

  private ServerCallHandler<byte[], byte[]> handler(boolean traces) {
    return (call, headers) -> {
      long receiveNanos = epochNanos.getAsLong();
      call.request(1);
      return new ServerCall.Listener<>() {
        private byte[] request;

        @Override
        public void onMessage(byte[] message) {
          request = message;
        }

        @Override
        public void onHalfClose() {
          if (request == null) {
            call.close(
                Status.INVALID_ARGUMENT.withDescription("no request message"), sync(receiveNanos));
            return;
          }
          if (!slots.tryAcquire()) {
            ingest.stats().rejected("busy");
            call.close(
                Status.UNAVAILABLE.withDescription("too many concurrent requests"),
                sync(receiveNanos));
            return;
          }
          try {
            if (traces) {
              ingest.admitTraces();
            }
            byte[] response =
                traces
                    ? ingest.traces(request, request.length, false)
                    : ingest.metrics(request, request.length, false);
            call.sendHeaders(sync(receiveNanos));
            call.sendMessage(response);
            call.close(Status.OK, new Metadata());
          } catch (BusyException e) {
            ingest.stats().rejected(e.reason());
            call.close(Status.UNAVAILABLE.withDescription(e.getMessage()), sync(receiveNanos));
          } catch (MalformedException e) {
            ingest.stats().rejected("malformed");
            call.close(Status.INVALID_ARGUMENT.withDescription(e.getMessage()), sync(receiveNanos));
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "OTLP/gRPC request failed", e);
            ingest.stats().rejected("internal");
            call.close(Status.INTERNAL.withDescription("internal error"), sync(receiveNanos));
          } finally {
            slots.release();
          }
        }
      };
    };
  }

  private Metadata sync(long receiveNanos) {
    Metadata metadata = new Metadata();
    metadata.put(RECEIVE_TIME, SyncStamps.micros(receiveNanos));
    metadata.put(SEND_TIME, SyncStamps.micros(epochNanos.getAsLong()));
    return metadata;
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    slots.close();
  }
}
