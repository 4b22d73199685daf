package dev.klat.kafka.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on loopback that holds every byte for a set time in each direction before passing it
 * on, the way a long network path does: latency is added, bandwidth is not taken away, and the
 * order of bytes is kept. The delay can be changed while connections are open; bytes already read
 * keep the delay they were read with.
 *
 * <p>Made for fault injection in tests: advertise a broker's listener at {@link #address()} through
 * an {@link AddressInterceptor}, and the clients or followers that use that listener go through the
 * proxy.
 */
public final class DelayingProxy implements AutoCloseable {

  private static final int CHUNK_BYTES = 64 * 1024;

  private final InetSocketAddress target;
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile long upstreamDelayNanos;
  private volatile long downstreamDelayNanos;
  private volatile boolean closed;

  private DelayingProxy(InetSocketAddress target, ServerSocket server) {
    this.target = target;
    this.server = server;
  }

  /**
   * Starts a proxy on a free loopback port that forwards to {@code target}, with no delay yet. The
   * target need not be listening yet: a connection made before it is closes at once.
   */
  public static DelayingProxy start(InetSocketAddress target) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName(LoopbackPorts.LOOPBACK));
      DelayingProxy proxy = new DelayingProxy(target, server);
      Thread acceptor = new Thread(proxy::accept, "delaying-proxy-accept-" + server.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a proxy port for " + target, e);
    }
  }

  /** Where clients connect. */
  public InetSocketAddress address() {
    return InetSocketAddress.createUnresolved(LoopbackPorts.LOOPBACK, server.getLocalPort());
  }

  /**
   * Sets the delay of each direction.
   *
   * @param upstream added to bytes from the connecting side to the target
   * @param downstream added to bytes from the target back to the connecting side
   */
  public void setDelay(Duration upstream, Duration downstream) {
    upstreamDelayNanos = upstream.toNanos();
    downstreamDelayNanos = downstream.toNanos();
  }

  /** Sets the same delay in both directions. */
  public void setDelay(Duration eachWay) {
    setDelay(eachWay, eachWay);
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(new InetSocketAddress(target.getHostString(), target.getPort()), 10_000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      try {
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
      } catch (IOException e) {
        // Nagle would only add latency of its own; not worth dropping the connection for.
      }
      sockets.add(client);
      sockets.add(upstream);
      String name = server.getLocalPort() + "-" + client.getPort();
      pipe(client, upstream, true, "up-" + name);
      pipe(upstream, client, false, "down-" + name);
    }
  }

  private record Chunk(byte[] bytes, int length, long dueNanos) {}

  private static final Chunk END = new Chunk(new byte[0], -1, 0);

  // One thread reads as fast as the sender writes and stamps each chunk; another writes each chunk
  // once its time has come. Reading never waits for the delay, so throughput is kept.
  private void pipe(Socket from, Socket to, boolean upstream, String name) {
    BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream()) {
                byte[] buffer = new byte[CHUNK_BYTES];
                while (true) {
                  int n = in.read(buffer);
                  if (n < 0) {
                    break;
                  }
                  long delay = upstream ? upstreamDelayNanos : downstreamDelayNanos;
                  queue.add(new Chunk(Arrays.copyOf(buffer, n), n, System.nanoTime() + delay));
                }
              } catch (IOException e) {
                // The connection went away; the writer closes the other side.
              } finally {
                queue.add(END);
              }
            },
            "delaying-proxy-read-" + name);
    Thread writer =
        new Thread(
            () -> {
              try (OutputStream out = to.getOutputStream()) {
                while (true) {
                  Chunk chunk = queue.poll(1, TimeUnit.SECONDS);
                  if (chunk == null) {
                    if (closed) {
                      break;
                    }
                    continue;
                  }
                  if (chunk == END) {
                    break;
                  }
                  long wait;
                  while ((wait = chunk.dueNanos() - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                  }
                  out.write(chunk.bytes(), 0, chunk.length());
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // Closing both sockets below ends the other direction too.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
              }
            },
            "delaying-proxy-write-" + name);
    reader.setDaemon(true);
    writer.setDaemon(true);
    reader.start();
    writer.start();
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Already closed, or the peer reset it: nothing left to release.
    }
  }

  @Override
  public String toString() {
    return "proxy " + address() + " -> " + target;
  }
}
