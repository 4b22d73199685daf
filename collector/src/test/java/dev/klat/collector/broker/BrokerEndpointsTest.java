package dev.klat.collector.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;

class BrokerEndpointsTest {

  @Test
  void brokerListsParseAndBadOnesNameTheKey() throws Exception {
    assertThat(
            BrokerEndpoints.exporters(
                "brokers.exporter", " 1=http://a:9404/metrics, 2=https://b:1/m ,"))
        .containsExactly(
            Map.entry(1, URI.create("http://a:9404/metrics")),
            Map.entry(2, URI.create("https://b:1/m")));
    assertThat(BrokerEndpoints.exporters("brokers.exporter", "")).isEmpty();
    assertThat(
            BrokerEndpoints.jmx(
                "brokers.jmx",
                "1=kafka-1:9999,2=service:jmx:rmi:///jndi/rmi://kafka-2:1099/jmxrmi,3=[::1]:7"))
        .containsExactly(
            Map.entry(1, new JMXServiceURL("service:jmx:rmi:///jndi/rmi://kafka-1:9999/jmxrmi")),
            Map.entry(2, new JMXServiceURL("service:jmx:rmi:///jndi/rmi://kafka-2:1099/jmxrmi")),
            Map.entry(3, new JMXServiceURL("service:jmx:rmi:///jndi/rmi://[::1]:7/jmxrmi")));
    for (String bad :
        new String[] {
          "http://a:1/m", "x=http://a:1/m", "-1=http://a:1/m", "1=ftp://a/m", "1=a:1"
        }) {
      assertThatThrownBy(() -> BrokerEndpoints.exporters("brokers.exporter", bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("brokers.exporter");
    }
    assertThatThrownBy(
            () -> BrokerEndpoints.exporters("brokers.exporter", "1=http://a/m,1=http://b/m"))
        .hasMessageContaining("given twice");
    for (String bad :
        new String[] {"1=kafka", "1=kafka:0", "1=kafka:x", "1=:9999", "1=service:jmx:"}) {
      assertThatThrownBy(() -> BrokerEndpoints.jmx("brokers.jmx", bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("brokers.jmx");
    }
  }
}
