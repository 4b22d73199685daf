package dev.klat.collector.export;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HealthzTest {

  @Test
  void okWhileEveryPartWorksAndServiceUnavailableNamingThePartThatStopped() {
    AdminServer.Response ok = AdminServer.health(null);
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("ok\n");

    AdminServer.Response stopped =
        AdminServer.health("the probe topic reader stopped: TimeoutException");
    assertThat(stopped.status()).isEqualTo(503);
    assertThat(stopped.body()).isEqualTo("the probe topic reader stopped: TimeoutException\n");
  }
}
