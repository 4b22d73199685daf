package dev.klat.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.klat.model.SpanAttributes;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceAttributesTest {

  @Test
  void namesTheServiceTheHostAndTheAgentInstance() {
    ExportSettings settings =
        ExportSettings.builder()
            .serviceName("orders")
            .hostName("host-a")
            .instanceId(0x2aL)
            .resourceAttribute("deployment.environment", "prod")
            .build();
    Map<String, Object> attributes = ResourceAttributes.of(settings, "1.2.3");
    assertThat(attributes)
        .containsEntry("service.name", "orders")
        .containsEntry("service.instance.id", "000000000000002a")
        .containsEntry("host.name", "host-a")
        .containsEntry("telemetry.sdk.version", "1.2.3")
        .containsEntry("deployment.environment", "prod")
        .containsEntry(SpanAttributes.INSTANCE_ID.name(), 0x2aL);
  }

  @Test
  void theAgentSetsTheReservedKeysItself() {
    assertThat(ResourceAttributes.RESERVED_KEYS).contains("service.name", "telemetry.sdk.name");
  }

  @Test
  void theInstanceIdIsSixteenHexDigitsAsStringFormatWritesIt() {
    for (long id : new long[] {0L, 1L, 0xdeadbeefL, -1L, Long.MIN_VALUE, 0x0123456789abcdefL}) {
      assertThat(ResourceAttributes.hex16(id)).isEqualTo(String.format("%016x", id));
    }
  }
}
