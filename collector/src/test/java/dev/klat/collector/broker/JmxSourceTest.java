package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.collector.correlate.BrokerTimings;
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

  private static void register(MBeanServer server, String name, Object value) throws Exception {
    GaugeMBean gauge = () -> value;
    server.registerMBean(
        new StandardMBean(gauge, GaugeMBean.class),
        new ObjectName("kafka.server:type=ReplicaManager,name=" + name));
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
