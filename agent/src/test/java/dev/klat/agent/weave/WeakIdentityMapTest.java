package dev.klat.agent.weave;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WeakIdentityMapTest {

  // Equal by content, as kafka-clients' generated request data are: the map must still tell apart.
  private record Request(String topic) {}

  @Test
  void keysAreTheirIdentityNotTheirContent() {
    WeakIdentityMap map = new WeakIdentityMap();
    Request first = new Request("orders");
    Request second = new Request("orders");
    map.put(first, "first");
    map.put(second, "second");

    assertThat(map.get(first)).isEqualTo("first");
    assertThat(map.get(second)).isEqualTo("second");
    assertThat(map.get(new Request("orders"))).isNull();
    assertThat(map.size()).isEqualTo(2);
  }

  @Test
  void aSecondPutReplacesAndNullRemoves() {
    WeakIdentityMap map = new WeakIdentityMap();
    Object key = new Object();
    map.put(key, "a");
    map.put(key, "b");
    assertThat(map.get(key)).isEqualTo("b");
    assertThat(map.size()).isEqualTo(1);
    map.put(key, null);
    assertThat(map.get(key)).isNull();
    assertThat(map.size()).isZero();
  }

  @Test
  void entriesGoOnceTheirKeysAreCollected() throws Exception {
    WeakIdentityMap map = new WeakIdentityMap();
    Object kept = new Object();
    map.put(kept, "kept");
    List<Object> dropped = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      Object key = new Object();
      dropped.add(key);
      map.put(key, i);
    }
    dropped.clear();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (map.size() > 1 && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(10);
    }

    assertThat(map.size()).isEqualTo(1);
    assertThat(map.get(kept)).isEqualTo("kept");
  }
}
