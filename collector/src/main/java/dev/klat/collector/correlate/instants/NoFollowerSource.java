package dev.klat.collector.correlate.instants;

import dev.klat.collector.correlate.join.RecordKey;
import java.util.function.Supplier;

/**
 * {@code H = L} for a partition with no follower (replication factor 1): its in-sync replica set is
 * the leader alone, so the high watermark moves on the append itself and commit is 0, whatever the
 * produce round trip left unexplained. {@code H} is {@code L} as chosen, with its clock and method
 * (so its quality is {@code L}'s, and the commit segment spans no clock offset).
 */
final class NoFollowerSource implements BrokerInstantSource {
  private final Replicas replicas;

  NoFollowerSource(Replicas replicas) {
    this.replicas = replicas;
  }

  @Override
  public BrokerInstant commit(BrokerLookup record, Supplier<BrokerInstant> worse) {
    BrokerInstant append = record.append();
    RecordKey key = record.key();
    if (append != null && replicas.replicationFactor(key.topic(), key.partition()) == 1) {
      return append;
    }
    return worse.get();
  }
}
