package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.instants.BrokerTimings;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.junit.jupiter.api.Test;

/** The JMX source's reading of the ReplicaManager gauges, against an in-process MBean server. */
class JmxSourceTest {

  /** A Yammer gauge as Kafka registers it: one attribute, {@code Value}. */
  public interface GaugeMBean {
    Object getValue();
  }

  /** A Yammer meter as Kafka registers it, reduced to the attribute klat reads. */
  public interface MeterMBean {
    long getCount();
  }

  private static void register(MBeanServer server, String name, Object value) throws Exception {
    registerGauge(server, "kafka.server:type=ReplicaManager,name=" + name, value);
  }

  private static void registerGauge(MBeanServer server, String objectName, Object value)
      throws Exception {
    GaugeMBean gauge = () -> value;
    server.registerMBean(new StandardMBean(gauge, GaugeMBean.class), new ObjectName(objectName));
  }

  private static void registerMeter(MBeanServer server, String name, long count) throws Exception {
    MeterMBean meter = () -> count;
    server.registerMBean(
        new StandardMBean(meter, MeterMBean.class),
        new ObjectName("kafka.server:type=ReplicaManager,name=" + name));
  }

  private static final String MAX_LAG =
      "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica";

  @Test
  void readsTheIsrChangeMetersAndTheReplicaFetcherLag() throws Exception {
    MBeanServer server = MBeanServerFactory.newMBeanServer();
    registerMeter(server, "IsrShrinksPerSec", 7);
    registerMeter(server, "IsrExpandsPerSec", 4);
    registerGauge(server, MAX_LAG, 1250L);

    assertThat(JmxSource.readReplication(server)).isEqualTo(new JmxSource.Replication(7, 4, 1250));
  }

  @Test
  void anIsrMeterOrLagTheBrokerLacksIsMissing() throws Exception {
    MBeanServer server = MBeanServerFactory.newMBeanServer();
    registerMeter(server, "IsrShrinksPerSec", 2);
    registerGauge(server, MAX_LAG, "not a number");
    // The same gauge of another clientId is not the followers' lag.
    registerGauge(
        server,
        "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=ReplicaAlterLogDirs",
        99L);

    assertThat(JmxSource.readReplication(server)).isEqualTo(new JmxSource.Replication(2, -1, -1));
    assertThat(JmxSource.readReplication(MBeanServerFactory.newMBeanServer()))
        .isEqualTo(new JmxSource.Replication(-1, -1, -1));
  }

  @Test
  void readsTheReplicaManagerGauges() throws Exception {
    MBeanServer server = MBeanServerFactory.newMBeanServer();
    register(server, "LeaderCount", 412);
    register(server, "PartitionCount", 1236);
    register(server, "UnderMinIsrPartitionCount", 3);

    assertThat(JmxSource.readPartitions(server))
        .isEqualTo(new BrokerTimings.Partitions(412, 1236, 3));
  }

  @Test
  void aGaugeTheBrokerLacksIsMissing() throws Exception {
    MBeanServer server = MBeanServerFactory.newMBeanServer();
    register(server, "LeaderCount", 7);
    register(server, "PartitionCount", "not a number");

    assertThat(JmxSource.readPartitions(server)).isEqualTo(new BrokerTimings.Partitions(7, -1, -1));
    assertThat(JmxSource.readPartitions(MBeanServerFactory.newMBeanServer()).any()).isFalse();
  }
}
