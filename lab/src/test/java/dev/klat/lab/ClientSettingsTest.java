package dev.klat.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientSettingsTest {

  @Test
  void theFileComesFirstTheExperimentsSettingsWinAndTheLabsBootstrapStays(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("client.properties");
    Files.writeString(
        file, "security.protocol=SASL_SSL\nacks=0\nbootstrap.servers=elsewhere:9092\n");
    Properties properties = new Properties();
    properties.put("bootstrap.servers", "lab:9092");

    ClientSettings.apply(
        properties, List.of(ClientSettings.FILE_KEY + "=" + file, "acks=all", "linger.ms=5"));

    assertThat(properties)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("acks", "all")
        .containsEntry("linger.ms", "5")
        .containsEntry("bootstrap.servers", "lab:9092");
  }
}
