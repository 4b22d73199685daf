package dev.klat.agent.producer;

import dev.klat.agent.AgentRuntime;
import dev.klat.agent.weave.States;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * The hook on the producer's retry decision: which error made it send a batch again. Apart from
 * {@link ProducerHooks} because it runs only on a failed attempt, never on the path of a batch that
 * succeeds.
 *
 * <p>Public only because woven code in kafka-clients' packages calls it.
 */
public final class RetryHooks {

  private RetryHooks() {}

  /**
   * At each return of {@code Sender.canRetry(ProducerBatch, PartitionResponse, long)}, on the
   * producer's network thread. From 2.8 to 4.4 {@code completeBatch} calls it only for a partition
   * response with an error (after the {@code MESSAGE_TOO_LARGE} split, which is no retry) and
   * re-enqueues the batch exactly when it returns true; so the response's error is the one the
   * batch is retried for. A later retry of the same batch overwrites it: the span names the last.
   */
  public static void onRetryDecided(boolean retrying, Object batch, Object partitionResponse) {
    if (!retrying) {
      return;
    }
    try {
      Object state = States.get(batch);
      if (state instanceof BatchTiming
          && partitionResponse instanceof ProduceResponse.PartitionResponse) {
        // Errors is an enum: its name is a constant, no string is built here.
        ((BatchTiming) state).retryError =
            ((ProduceResponse.PartitionResponse) partitionResponse).error.name();
      }
    } catch (Throwable t) {
      AgentRuntime runtime = AgentRuntime.get();
      if (runtime != null) {
        runtime.log.warnThrottled("producer-retry", "klat hook producer-retry failed: " + t);
      }
    }
  }
}
