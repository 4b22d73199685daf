package dev.klat.probe.telemetry;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/** What became of the pushes, for JMX ({@link ForwarderCountersMBean}) and the log. */
public final class ForwarderCounters implements ForwarderCountersMBean {

  final AtomicLong received = new AtomicLong();
  final AtomicLong forwarded = new AtomicLong();
  final AtomicLong droppedQueueFull = new AtomicLong();
  final AtomicLong droppedMalformed = new AtomicLong();
  final AtomicLong droppedEmpty = new AtomicLong();
  final AtomicLong droppedUnsent = new AtomicLong();
  final AtomicLong droppedError = new AtomicLong();
  private final IntSupplier queued;

  ForwarderCounters(IntSupplier queued) {
    this.queued = queued;
  }

  @Override
  public long getReceived() {
    return received.get();
  }

  @Override
  public long getForwarded() {
    return forwarded.get();
  }

  @Override
  public long getDroppedQueueFull() {
    return droppedQueueFull.get();
  }

  @Override
  public long getDroppedMalformed() {
    return droppedMalformed.get();
  }

  @Override
  public long getDroppedEmpty() {
    return droppedEmpty.get();
  }

  @Override
  public long getDroppedUnsent() {
    return droppedUnsent.get();
  }

  @Override
  public long getDroppedError() {
    return droppedError.get();
  }

  @Override
  public int getQueued() {
    return queued.getAsInt();
  }

  /** All dropped pushes. */
  long dropped() {
    return droppedQueueFull.get()
        + droppedMalformed.get()
        + droppedEmpty.get()
        + droppedUnsent.get()
        + droppedError.get();
  }

  @Override
  public String toString() {
    return "received "
        + received.get()
        + ", forwarded "
        + forwarded.get()
        + ", dropped: queue full "
        + droppedQueueFull.get()
        + ", malformed "
        + droppedMalformed.get()
        + ", empty "
        + droppedEmpty.get()
        + ", unsent "
        + droppedUnsent.get()
        + ", error "
        + droppedError.get();
  }
}
