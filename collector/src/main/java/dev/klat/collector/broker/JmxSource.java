package dev.klat.collector.broker;

import dev.klat.collector.correlate.instants.BrokerTimings;
import dev.klat.collector.correlate.instants.BrokerTimings.Request;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMISocketFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A broker's platform MBean server over JMX/RMI: one {@code getAttributes(Count, Mean)} per
 * histogram, one {@code getAttribute(Value)} per ReplicaManager partition gauge and for the replica
 * fetchers' {@code MaxLag}, and one {@code getAttribute(Count)} per ISR change meter (27 round
 * trips a scrape; JMX has no call that spans MBeans), over a connection kept between scrapes and
 * dropped on the first error.
 */
final class JmxSource implements Source {
  private static final String[] ATTRIBUTES = {"Count", "Mean"};
  // LeaderCount, PartitionCount, UnderMinIsrPartitionCount, in the order of Reading's setters.
  private static final ObjectName[] GAUGES = {
    gauge("LeaderCount"), gauge("PartitionCount"), gauge("UnderMinIsrPartitionCount")
  };
  private static final ObjectName ISR_SHRINKS = gauge("IsrShrinksPerSec");
  private static final ObjectName ISR_EXPANDS = gauge("IsrExpandsPerSec");
  private static final ObjectName MAX_LAG =
      objectName("kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica");

  private final JMXServiceURL url;
  private final ObjectName[][] names;
  private final Map<String, Object> environment = new HashMap<>();
  private final JmxAuth auth;
  private final int connectTimeoutMs;
  private final int readTimeoutMs;
  private JMXConnector connector;
  private MBeanServerConnection connection;

  JmxSource(JMXServiceURL url, int connectTimeoutMs, int readTimeoutMs) {
    this(url, connectTimeoutMs, readTimeoutMs, JmxAuth.NONE);
  }

  JmxSource(JMXServiceURL url, int connectTimeoutMs, int readTimeoutMs, JmxAuth auth) {
    this.url = url;
    this.auth = auth;
    this.connectTimeoutMs = connectTimeoutMs;
    this.readTimeoutMs = readTimeoutMs;
    names = new ObjectName[Phase.REQUESTS.length][Phase.ALL.length];
    for (Request request : Phase.REQUESTS) {
      for (Phase phase : Phase.ALL) {
        names[request.ordinal()][phase.ordinal()] = name(request, phase);
      }
    }
    TimeoutSockets factory = TimeoutSockets.install(connectTimeoutMs, readTimeoutMs);
    // The RMI registry lookup takes its socket factory from here; the connection that follows
    // uses the JVM-wide factory installed above.
    environment.put("com.sun.jndi.rmi.factory.socket", factory);
    // No checker thread pinging the connection: a failed scrape drops it anyway.
    environment.put("jmx.remote.x.client.connection.check.period", 0L);
  }

  static ObjectName name(Request request, Phase phase) {
    try {
      return new ObjectName(
          "kafka.network:type=RequestMetrics,name="
              + phase.jmxName
              + ",request="
              + Phase.requestLabel(request));
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectName gauge(String name) {
    return objectName("kafka.server:type=ReplicaManager,name=" + name);
  }

  private static ObjectName objectName(String name) {
    try {
      return new ObjectName(name);
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Reads the ReplicaManager partition gauges; one the broker lacks is -1. */
  static BrokerTimings.Partitions readPartitions(MBeanServerConnection connection)
      throws IOException {
    long[] values = new long[GAUGES.length];
    for (int i = 0; i < GAUGES.length; i++) {
      values[i] = readWhole(connection, GAUGES[i], "Value");
    }
    return new BrokerTimings.Partitions(values[0], values[1], values[2]);
  }

  /** The ISR change meters' counts and the replica fetchers' largest lag, each -1 when missing. */
  record Replication(long isrShrinks, long isrExpands, long maxLagMessages) {}

  /** Reads the ISR change meters' {@code Count} and the replica fetchers' {@code MaxLag}. */
  static Replication readReplication(MBeanServerConnection connection) throws IOException {
    return new Replication(
        readWhole(connection, ISR_SHRINKS, "Count"),
        readWhole(connection, ISR_EXPANDS, "Count"),
        readWhole(connection, MAX_LAG, "Value"));
  }

  // An optional whole number >= 0: -1 when the MBean or attribute is missing or not such a number.
  private static long readWhole(MBeanServerConnection connection, ObjectName name, String attribute)
      throws IOException {
    Object value;
    try {
      value = connection.getAttribute(name, attribute);
    } catch (InstanceNotFoundException | AttributeNotFoundException e) {
      return -1;
    } catch (JMException e) {
      throw new IOException(e.toString(), e);
    }
    return value instanceof Number n && n.longValue() >= 0 ? n.longValue() : -1;
  }

  /** {@code service:jmx:rmi:///jndi/rmi://host:port/jmxrmi}, the JVM's default agent. */
  static String serviceUrl(String host, int port) {
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return "service:jmx:rmi:///jndi/rmi://" + h + ":" + port + "/jmxrmi";
  }

  @Override
  public String kind() {
    return "jmx";
  }

  @Override
  public String endpoint() {
    return url.toString();
  }

  @Override
  public Reading read(LongSupplier epochNanos) throws IOException {
    if (connection == null) {
      Map<String, Object> env = new HashMap<>(environment);
      // Per connection: a rotated password file is read again.
      auth.apply(env, connectTimeoutMs, readTimeoutMs);
      connector = JMXConnectorFactory.connect(url, env);
      connection = connector.getMBeanServerConnection();
    }
    try {
      long beforeNanos = epochNanos.getAsLong();
      long[][] counts = new long[Phase.REQUESTS.length][Phase.ALL.length];
      double[][] means = new double[Phase.REQUESTS.length][Phase.ALL.length];
      for (Request request : Phase.REQUESTS) {
        for (Phase phase : Phase.ALL) {
          counts[request.ordinal()][phase.ordinal()] = -1;
          means[request.ordinal()][phase.ordinal()] = Double.NaN;
          AttributeList values;
          try {
            values =
                connection.getAttributes(names[request.ordinal()][phase.ordinal()], ATTRIBUTES);
          } catch (InstanceNotFoundException e) {
            continue; // this broker has no such histogram (yet): missing
          } catch (JMException e) {
            throw new IOException(e.toString(), e);
          }
          for (Attribute a : values.asList()) {
            if (a.getName().equals("Count") && a.getValue() instanceof Number n) {
              counts[request.ordinal()][phase.ordinal()] = n.longValue();
            } else if (a.getName().equals("Mean") && a.getValue() instanceof Number n) {
              means[request.ordinal()][phase.ordinal()] = n.doubleValue();
            }
          }
        }
      }
      BrokerTimings.Partitions p = readPartitions(connection);
      Replication replication = readReplication(connection);
      Reading reading = new Reading(beforeNanos + (epochNanos.getAsLong() - beforeNanos) / 2);
      reading.leaders(p.leaders());
      reading.partitions(p.partitions());
      reading.underMinIsr(p.underMinIsr());
      reading.isrShrinks(replication.isrShrinks());
      reading.isrExpands(replication.isrExpands());
      reading.maxLagMessages(replication.maxLagMessages());
      for (Request request : Phase.REQUESTS) {
        for (Phase phase : Phase.ALL) {
          reading.count(request, phase, counts[request.ordinal()][phase.ordinal()]);
          double mean = means[request.ordinal()][phase.ordinal()];
          reading.meanMs(request, phase, Double.isFinite(mean) ? mean : Double.NaN);
        }
      }
      return reading;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public void close() {
    JMXConnector c = connector;
    connector = null;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        // the broker is gone; nothing to release on our side
      }
    }
  }

  /**
   * RMI sockets with connect and read timeouts. RMI takes the factory of a remote object's stub
   * from the server, and the JVM's default agent sends none, so the client side falls back to the
   * JVM-wide {@link RMISocketFactory}: without one, a broker that accepts and never answers would
   * hold a scraping thread forever. Installed once per JVM, and only when nobody installed another
   * (the collector owns its JVM; an embedding application keeps its own).
   */
  static final class TimeoutSockets extends RMISocketFactory implements RMIClientSocketFactory {
    private static TimeoutSockets installed;
    private final int connectTimeoutMs;
    private final int readTimeoutMs;

    private TimeoutSockets(int connectTimeoutMs, int readTimeoutMs) {
      this.connectTimeoutMs = connectTimeoutMs;
      this.readTimeoutMs = readTimeoutMs;
    }

    static synchronized TimeoutSockets install(int connectTimeoutMs, int readTimeoutMs) {
      if (installed == null) {
        installed = new TimeoutSockets(connectTimeoutMs, readTimeoutMs);
        if (RMISocketFactory.getSocketFactory() == null) {
          try {
            RMISocketFactory.setSocketFactory(installed);
          } catch (IOException | RuntimeException e) {
            // another thread won; its factory applies
          }
        }
      }
      return installed;
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      Socket socket = new Socket();
      try {
        socket.connect(new InetSocketAddress(host, port), connectTimeoutMs);
        socket.setSoTimeout(readTimeoutMs);
        return socket;
      } catch (IOException e) {
        socket.close();
        throw e;
      }
    }

    @Override
    public java.net.ServerSocket createServerSocket(int port) throws IOException {
      return RMISocketFactory.getDefaultSocketFactory().createServerSocket(port);
    }

    // The same instance for every source, so RMI can share connections between equal factories.
    @Override
    public boolean equals(Object other) {
      return other == this;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }
}
