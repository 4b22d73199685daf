package dev.klat.collector.hostile;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

/**
 * Attacks on the receivers' transport: bodies that cost memory to parse or to hold, senders that
 * never finish. Each is one {@link Attack}; sizes come from the collector's defaults ({@code
 * otlp.max-body-bytes} 16 MiB).
 */
final class TransportAttacks {
  static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
  static final boolean LONG = Boolean.getBoolean("hostile.long");

  private TransportAttacks() {}

  /**
   * OTLP/JSON of the largest size made of empty objects (spans, resources): a parser that builds
   * the body as a tree needs tens of bytes per three of body, over 300 MB here. Posted by two
   * clients at once, again and again.
   */
  static void emptyObjectsJson(HostileCollector target, long untilNanos, Outcomes log)
      throws Exception {
    byte[] spans = fill("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[", "{},", "{}]}]}]}");
    byte[] resources = fill("{\"resourceSpans\":[", "{},", "{}]}");
    Thread other =
        new Thread(() -> postUntil(target, untilNanos, log, "empty-resources", resources));
    other.start();
    postUntil(target, untilNanos, log, "empty-spans", spans);
    other.join();
  }

  // Three answers other than 503 (or, with hostile.long, as many as the attack lasts): a 503 is
  // the collector refusing the body because the other attacks' bodies fill its receive budget
  // (otlp.max-receiving-bytes), counted, and posted again after a pause; under a loaded CI
  // machine all three first posts were refused once, and the parser was never reached.
  private static void postUntil(
      HostileCollector target, long untilNanos, Outcomes log, String name, byte[] body) {
    int times = LONG ? Integer.MAX_VALUE : 3;
    int answered = 0;
    while (answered < times && System.nanoTime() < untilNanos) {
      int status =
          target.post(
              "/v1/traces", "application/json", null, HttpRequest.BodyPublishers.ofByteArray(body));
      log.add(name + " " + status);
      if (status == 503) {
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      } else {
        answered++;
      }
    }
  }

  /**
   * Sockets that send a request's headers, then one byte of the body every 5 s: each holds a
   * request thread until {@code otlp.read-timeout} cuts it off, and is opened again.
   */
  static void slowSockets(HostileCollector target, long untilNanos, Outcomes log) throws Exception {
    Socket[] sockets = new Socket[LONG ? 16 : 4];
    try {
      while (System.nanoTime() < untilNanos) {
        for (int i = 0; i < sockets.length; i++) {
          try {
            if (sockets[i] == null) {
              sockets[i] = slowRequest(target);
            } else {
              sockets[i].getOutputStream().write('x');
              sockets[i].getOutputStream().flush();
              if (cutOff(sockets[i])) {
                throw new IOException("closed by the collector");
              }
            }
          } catch (IOException e) {
            log.add("slow-socket cut off");
            closeQuietly(sockets[i]);
            sockets[i] = null;
          }
        }
        Thread.sleep(Math.min(5_000, Math.max(1, (untilNanos - System.nanoTime()) / 1_000_000)));
      }
    } finally {
      for (Socket s : sockets) {
        closeQuietly(s);
      }
    }
  }

  private static Socket slowRequest(HostileCollector target) throws IOException {
    Socket s = new Socket("127.0.0.1", target.httpPort);
    OutputStream out = s.getOutputStream();
    out.write(
        ("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                + "Content-Length: 1000000\r\n\r\nx")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return s;
  }

  // Whether the collector closed the socket (end of stream or reset), without waiting.
  private static boolean cutOff(Socket s) throws IOException {
    s.setSoTimeout(1);
    try {
      return s.getInputStream().read() < 0;
    } catch (java.net.SocketTimeoutException stillOpen) {
      return false;
    }
  }

  /**
   * gRPC calls that send a message and never half-close, so that the collector holds each (22 on
   * one connection, as measured against the unbounded receiver; 64 in the long run), each closed
   * one opened again (on a new connection when the collector cut it off).
   */
  static void hangingGrpcCalls(HostileCollector target, long untilNanos, Outcomes log)
      throws Exception {
    hangingGrpcCalls(target, untilNanos, log, Integer.MAX_VALUE);
  }

  /**
   * As {@link #hangingGrpcCalls(HostileCollector, long, Outcomes)}, ended early once {@code
   * cutOffs} calls were cut off by the read timeout: how long the collector takes to start cutting
   * depends on the machine's load, what it does once it has started does not.
   *
   * <p>A call the collector cut off is opened again on a new connection: on its own, grpc-java
   * starts the calls waiting beyond the connection's 4 streams only once it reset a cut-off one,
   * and some runs it never does (the collector answered 4 calls DEADLINE_EXCEEDED and no call after
   * them started in 20 s), which would measure the client, not the collector. A call refused at
   * once is opened again on the same connection, so that refusals do not open a connection each.
   */
  static void hangingGrpcCalls(HostileCollector target, long untilNanos, Outcomes log, int cutOffs)
      throws Exception {
    byte[] message = new byte[(LONG ? 8 : 1) << 20];
    Arrays.fill(message, (byte) 0x0a); // never read: the call never ends
    List<ManagedChannel> channels = new ArrayList<>();
    List<ClientCall<byte[], byte[]>> calls = new ArrayList<>();
    try {
      java.util.concurrent.BlockingQueue<Status.Code> closed =
          new java.util.concurrent.LinkedBlockingQueue<>();
      ManagedChannel channel = grpcChannel(target);
      channels.add(channel);
      for (int i = 0; i < (LONG ? 64 : 22); i++) {
        calls.add(hangingCall(channel, message, log, closed));
      }
      while (System.nanoTime() < untilNanos
          && log.count("hanging-grpc DEADLINE_EXCEEDED") < cutOffs) {
        Status.Code code = closed.poll(100, TimeUnit.MILLISECONDS);
        if (code == null) {
          continue;
        }
        if (code == Status.Code.DEADLINE_EXCEEDED) {
          channel = grpcChannel(target);
          channels.add(channel);
        }
        calls.add(hangingCall(channel, message, log, closed));
      }
    } finally {
      for (ClientCall<byte[], byte[]> call : calls) {
        call.cancel("attack over", null);
      }
      for (ManagedChannel channel : channels) {
        channel.shutdownNow();
      }
    }
  }

  private static ManagedChannel grpcChannel(HostileCollector target) {
    return NettyChannelBuilder.forAddress("127.0.0.1", target.grpcPort)
        .usePlaintext()
        .maxInboundMessageSize(1 << 20)
        .build();
  }

  private static ClientCall<byte[], byte[]> hangingCall(
      ManagedChannel channel,
      byte[] message,
      Outcomes log,
      java.util.concurrent.BlockingQueue<Status.Code> closed) {
    ClientCall<byte[], byte[]> call = channel.newCall(TRACE_EXPORT, CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            log.add("hanging-grpc " + status.getCode());
            closed.add(status.getCode());
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(message);
    return call;
  }

  /** One honest OTLP/gRPC trace export on {@code channel}: its status. */
  static Status.Code export(ManagedChannel channel, byte[] body) throws Exception {
    java.util.concurrent.CompletableFuture<Status> done =
        new java.util.concurrent.CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(TRACE_EXPORT, CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            done.complete(status);
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(body);
    call.halfClose();
    return done.get(30, TimeUnit.SECONDS).getCode();
  }

  /** Bodies over {@code otlp.max-body-bytes}: announced (Content-Length), then chunked. */
  static void oversizedBodies(HostileCollector target, long untilNanos, Outcomes log) {
    byte[] body = new byte[MAX_BODY_BYTES + 1024];
    for (int i = 0; i < (LONG ? 20 : 2) && System.nanoTime() < untilNanos; i++) {
      log.add(
          "oversized "
              + target.post(
                  "/v1/traces",
                  "application/x-protobuf",
                  null,
                  HttpRequest.BodyPublishers.ofByteArray(body)));
      log.add(
          "oversized-chunked "
              + target.post(
                  "/v1/traces",
                  "application/x-protobuf",
                  null,
                  HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))));
    }
  }

  /** A gzip body of 64 KiB that inflates to 64 MiB of zeros (1 GiB in the long run). */
  static void gzipBombs(HostileCollector target, long untilNanos, Outcomes log) throws IOException {
    byte[] bomb = gzipOfZeros((LONG ? 1024L : 64L) << 20);
    for (int i = 0; i < (LONG ? 20 : 3) && System.nanoTime() < untilNanos; i++) {
      log.add(
          "gzip-bomb "
              + target.post(
                  "/v1/traces",
                  "application/x-protobuf",
                  "gzip",
                  HttpRequest.BodyPublishers.ofByteArray(bomb)));
    }
  }

  static byte[] gzipOfZeros(long bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] zeros = new byte[1 << 16];
    try (GZIPOutputStream gzip = new GZIPOutputStream(out, 1 << 16)) {
      for (long written = 0; written < bytes; written += zeros.length) {
        gzip.write(zeros);
      }
    }
    return out.toByteArray();
  }

  /**
   * {@code head}, then {@code item} (ending in a comma) repeated, then {@code tail} (with the last
   * item): the largest body.
   */
  static byte[] fill(String head, String item, String tail) {
    byte[] h = head.getBytes(StandardCharsets.UTF_8);
    byte[] i = item.getBytes(StandardCharsets.UTF_8);
    byte[] t = tail.getBytes(StandardCharsets.UTF_8);
    int count = (MAX_BODY_BYTES - h.length - t.length) / i.length;
    byte[] body = Arrays.copyOf(h, h.length + count * i.length + t.length);
    for (int n = 0; n < count; n++) {
      System.arraycopy(i, 0, body, h.length + n * i.length, i.length);
    }
    System.arraycopy(t, 0, body, h.length + count * i.length, t.length);
    return body;
  }

  private static void closeQuietly(Socket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // gone already
      }
    }
  }

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
            throw new IllegalStateException(e);
          }
        }
      };

  static final MethodDescriptor<byte[], byte[]> TRACE_EXPORT =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("opentelemetry.proto.collector.trace.v1.TraceService/Export")
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();
}
