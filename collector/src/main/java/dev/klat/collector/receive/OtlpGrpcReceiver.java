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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
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
 * <p>Memory: Netty holds a call's message until it is whole, up to {@code maxBodyBytes} of direct
 * memory, then it is copied to the heap for decoding. So a call takes a place among {@link
 * ReceiverLimits#maxCallsReceiving()} (the receiving budget in bodies of the largest size) from its
 * start to its answer, and is refused with UNAVAILABLE (counted as {@code receiving-full}) when
 * none is free; a call whose message has not arrived whole within the read timeout is cancelled
 * with DEADLINE_EXCEEDED (counted as {@code read-timeout}), which frees what it held; and a
 * connection must finish its handshake within the read timeout, answer keep-alive pings and carry a
 * call at least every five minutes. Once whole, a message takes a decode slot like an HTTP body.
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
  private final Semaphore callsHeld;
  private final long readTimeoutMillis;
  private final ScheduledExecutorService deadlines;

  // An idle connection (no call) is closed after this; a silent peer after a missed ping.
  static final long MAX_CONNECTION_IDLE_MINUTES = 5;
  static final long KEEP_ALIVE_SECONDS = 60;
  static final long KEEP_ALIVE_TIMEOUT_SECONDS = 20;

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
    // gRPC's callbacks never wait for the wire (a message arrives whole), so two threads beside
    // the slots answer refusals.
    this.slots = new RequestSlots(limits.maxConcurrentRequests(), 2, "klat-otlp-grpc", null);
    this.callsHeld = new Semaphore(limits.maxCallsReceiving());
    this.readTimeoutMillis = limits.readTimeoutMillis();
    this.deadlines =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "klat-otlp-grpc-deadlines");
              t.setDaemon(true);
              return t;
            });
    // TLS and the token interceptor, when on, are the security's part of the server.
    this.server =
        security
            .grpc(NettyServerBuilder.forAddress(address))
            .executor(slots.executor())
            .maxInboundMessageSize(limits.maxBodyBytes())
            .maxConcurrentCallsPerConnection(limits.maxCallsReceiving())
            .handshakeTimeout(readTimeoutMillis, TimeUnit.MILLISECONDS)
            .maxConnectionIdle(MAX_CONNECTION_IDLE_MINUTES, TimeUnit.MINUTES)
            .keepAliveTime(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS)
            .keepAliveTimeout(KEEP_ALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
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
      if (!callsHeld.tryAcquire()) {
        ingest.stats().rejected("receiving-full");
        call.close(
            Status.UNAVAILABLE.withDescription(
                "too many calls arriving at once (otlp.max-receiving-bytes)"),
            sync(receiveNanos));
        return new ServerCall.Listener<>() {};
      }
      Arrival arrival = new Arrival();
      arrival.deadline =
          deadlines.schedule(
              () -> {
                if (arrival.end(Arrival.TIMED_OUT)) {
                  ingest.stats().rejected("read-timeout");
                  synchronized (arrival) {
                    call.close(
                        Status.DEADLINE_EXCEEDED.withDescription(
                            "request not arrived within otlp.read-timeout"),
                        sync(receiveNanos));
                  }
                }
              },
              readTimeoutMillis,
              TimeUnit.MILLISECONDS);
      call.request(1);
      return new ServerCall.Listener<>() {
        private byte[] request;

        @Override
        public void onMessage(byte[] message) {
          request = message;
        }

        @Override
        public void onHalfClose() {
          synchronized (arrival) {
            if (!arrival.end(Arrival.ARRIVED)) {
              return; // cut off by the read timeout
            }
          }
          try {
            if (request == null) {
              call.close(
                  Status.INVALID_ARGUMENT.withDescription("no request message"),
                  sync(receiveNanos));
              return;
            }
            answer(call, traces, request, receiveNanos);
          } finally {
            // The message is dropped with the answer: its place goes back now.
            request = null;
            callsHeld.release();
          }
        }

        @Override
        public void onCancel() {
          arrival.end(Arrival.CANCELLED);
        }

        @Override
        public void onComplete() {
          arrival.end(Arrival.CANCELLED);
        }
      };
    };
  }

  /**
   * A call from its start to its last byte: it ends once, when the message is whole (its place
   * among the calls held goes back after the answer), or when the call is cancelled or the read
   * timeout cuts it off (its place goes back at once).
   */
  private final class Arrival {
    static final int ARRIVING = 0;
    static final int ARRIVED = 1;
    static final int TIMED_OUT = 2;
    static final int CANCELLED = 3;

    private final java.util.concurrent.atomic.AtomicInteger state =
        new java.util.concurrent.atomic.AtomicInteger(ARRIVING);
    volatile ScheduledFuture<?> deadline;

    /** Moves from arriving to {@code end}: true for the first caller only. */
    boolean end(int end) {
      if (!state.compareAndSet(ARRIVING, end)) {
        return false;
      }
      if (end != ARRIVED) {
        callsHeld.release();
      }
      ScheduledFuture<?> d = deadline;
      if (d != null && end != TIMED_OUT) {
        d.cancel(false);
      }
      return true;
    }
  }

  private void answer(
      ServerCall<byte[], byte[]> call, boolean traces, byte[] request, long receiveNanos) {
    if (!slots.tryAcquire()) {
      ingest.stats().rejected("busy");
      call.close(
          Status.UNAVAILABLE.withDescription("too many concurrent requests"), sync(receiveNanos));
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
    deadlines.shutdownNow();
    slots.close();
  }
}
