package dev.klat.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.apache.kafka.storage.internals.log.LogOffsetMetadata;
import org.junit.jupiter.api.Test;

class LongReaderTest {

  /** {@code LogAppendInfo} from 3.7 on: {@code firstOffset()} is a long. */
  public static final class Current {
    public long firstOffset() {
      return 42;
    }
  }

  /** {@code LogAppendInfo} of 3.6: an Optional of the offset's metadata, empty for no append. */
  public static final class Kafka36 {
    private final Optional<LogOffsetMetadata> first;

    Kafka36(Optional<LogOffsetMetadata> first) {
      this.first = first;
    }

    public Optional<LogOffsetMetadata> firstOffset() {
      return first;
    }
  }

  /** {@code Replica}: the follower's node id is an int. */
  public static final class Replica {
    public int brokerId() {
      return 3;
    }
  }

  @Test
  void readsAnIntMethodWidened() throws Throwable {
    assertThat(new LongReader("brokerId").read(new Replica())).isEqualTo(3);
  }

  @Test
  void readsALongMethod() throws Throwable {
    assertThat(new LongReader("firstOffset").read(new Current())).isEqualTo(42);
  }

  @Test
  void readsTheMessageOffsetOfAnOptionalAndNothingOfAnEmptyOne() throws Throwable {
    LongReader reader = new LongReader("firstOffset");
    assertThat(reader.read(new Kafka36(Optional.of(new LogOffsetMetadata(17))))).isEqualTo(17);
    assertThat(reader.read(new Kafka36(Optional.empty()))).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void aClassWithoutTheMethodReadsAsNothingAndTheNextClassIsResolvedAgain() throws Throwable {
    LongReader reader = new LongReader("firstOffset");
    assertThat(reader.read("no such method")).isEqualTo(Long.MIN_VALUE);
    assertThat(reader.read(new Current())).isEqualTo(42);
  }
}
