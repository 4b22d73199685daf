package dev.klat.collector.correlate.join;

import dev.klat.collector.correlate.clock.ClockOffset;
import dev.klat.collector.correlate.clock.ClockOffsets;
import dev.klat.collector.correlate.clock.CollectorSyncs;
import dev.klat.collector.correlate.instants.BrokerInstants;
import dev.klat.model.Breakdown;
import dev.klat.model.Capture;
import dev.klat.model.TailTraceIds;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

/**
 * Joins consumer spans to producer spans on {@code (topic, partition, offset)}, per consumer group,
 * and computes each joined pair's {@link Breakdown} (sections 3 to 7 of the latency model).
 *
 * <p>Spans arrive in any order, twice, or never. A record waits in a table for at most the join
 * window from the arrival of its first span; within that time every consumer group joins the
 * producer span once, and repeats are counted as duplicates. When the window ends, the spans that
 * found no partner are counted as unjoined. The table holds at most {@code maxPendingRecords}
 * records: when it is full the oldest record leaves early and its waiting spans count as dropped,
 * so memory is bounded whatever the senders do.
 *
 * <p>Tail spans (section 8 of the latency model) join the same way, with each other and with
 * sampled spans: a trace id derived from the record ({@link TailTraceIds}) matches any other, and
 * the breakdown keeps the real one. A breakdown is {@link Capture#TAIL} when either span is a tail
 * span. Records whose spans are all tail spans wait under their own byte budget ({@code
 * maxPendingTailBytes}), so they never evict a sampled record. When a record's window ends, a tail
 * span without a partner becomes a one-sided breakdown ({@link OneSidedBreakdowns}): a producer
 * tail span that no group joined, a consumer tail span whose producer span did not come. Sampled
 * spans without a partner stay unjoined.
 *
 * <p>Spans of OpenTelemetry instrumentations (section 10 of the latency model, {@link #acceptOtel})
 * join in the same table, with klat's spans and with each other ({@link InstrumentedJoin}, {@link
 * InstrumentedBreakdowns}); where both report a side, klat's span is used.
 *
 * <p>Share groups (section 11 of the latency model): a share consumer's span is one delivery of its
 * record to its share group ({@link ConsumerSpan#share()}). The deliveries of a record and share
 * group gather in the record's entry ({@link SharePending}) until the counted delivery is known (an
 * accepted delivery with every earlier one seen, or the window's end: the accepted delivery, else
 * the last seen); that delivery then joins like a consumer group's span, and its breakdown carries
 * the deliveries ({@link ShareRecord}) with the redelivery part of catch-up.
 *
 * <p>No I/O and no wall clock: time comes from the injected clock (only to age entries and clock
 * bounds; instants come from the spans), so tests drive expiry deterministically. Thread-safe: all
 * methods take this object's lock, and the sink runs under it.
 */
public final class Correlator {

  private static final int MAX_HOST_NAMES = 65_536;

  /** The source of a span offered without one (everything but the join role's topic). */
  public static final long NO_SOURCE = -1;

  /**
   * Receives every breakdown with the source of the span that completed its join (see {@link
   * #offerProducer(ProducerSpan, long)}), under the correlator's lock: must be quick.
   */
  @FunctionalInterface
  public interface SourcedSink {
    void accept(JoinedBreakdown breakdown, long source);
  }

  /**
   * How the correlator is bounded.
   *
   * @param windowNanos how long a record waits for its partners after its first span arrived
   * @param maxPendingRecords how many records may wait at once
   * @param clockWindowNanos the sliding window of the clock offset bounds
   * @param maxClockPairs how many directed pairs of clock domains are tracked
   * @param maxPendingBytes the estimated bytes the waiting records may hold ({@link
   *     JoinTable#estimatedBytes})
   * @param maxGroupsPerRecord how many consumer groups one record joins or waits for
   * @param clockMaxStepNanos how far a record's clock bound may contradict what two clock domains'
   *     own measurements against the collector say before it is implausible and not used
   * @param maxPendingTailBytes the estimated bytes the records whose spans are all tail spans may
   *     hold, apart from {@code maxPendingBytes}
   */
  public record Settings(
      long windowNanos,
      int maxPendingRecords,
      long clockWindowNanos,
      int maxClockPairs,
      long maxPendingBytes,
      int maxGroupsPerRecord,
      long clockMaxStepNanos,
      long maxPendingTailBytes) {
    /** {@code join.max-pending-bytes}' default: 256 MiB. */
    public static final long DEFAULT_MAX_PENDING_BYTES = 256L << 20;

    /** {@code join.max-pending-tail-bytes}' default: 64 MiB. */
    public static final long DEFAULT_MAX_PENDING_TAIL_BYTES = 64L << 20;

    /** {@code join.max-groups-per-record}' default. */
    public static final int DEFAULT_MAX_GROUPS_PER_RECORD = 64;

    /** {@code clock.max-step}'s default: 1 s. */
    public static final long DEFAULT_CLOCK_MAX_STEP_NANOS = 1_000_000_000L;

    public Settings {
      if (windowNanos <= 0 || maxPendingRecords <= 0 || clockWindowNanos <= 0) {
        throw new IllegalArgumentException("window and limits must be positive");
      }
      if (maxClockPairs <= 0) {
        throw new IllegalArgumentException("maxClockPairs must be positive");
      }
      if (maxPendingBytes <= 0
          || maxGroupsPerRecord <= 0
          || clockMaxStepNanos <= 0
          || maxPendingTailBytes <= 0) {
        throw new IllegalArgumentException("byte, group and clock step limits must be positive");
      }
    }

    /** The settings with the default tail budget. */
    public Settings(
        long windowNanos,
        int maxPendingRecords,
        long clockWindowNanos,
        int maxClockPairs,
        long maxPendingBytes,
        int maxGroupsPerRecord,
        long clockMaxStepNanos) {
      this(
          windowNanos,
          maxPendingRecords,
          clockWindowNanos,
          maxClockPairs,
          maxPendingBytes,
          maxGroupsPerRecord,
          clockMaxStepNanos,
          DEFAULT_MAX_PENDING_TAIL_BYTES);
    }

    /** The settings with the defaults of the byte, group and clock step limits. */
    public Settings(
        long windowNanos, int maxPendingRecords, long clockWindowNanos, int maxClockPairs) {
      this(
          windowNanos,
          maxPendingRecords,
          clockWindowNanos,
          maxClockPairs,
          DEFAULT_MAX_PENDING_BYTES,
          DEFAULT_MAX_GROUPS_PER_RECORD,
          DEFAULT_CLOCK_MAX_STEP_NANOS);
    }
  }

  /**
   * Counts since start. Each span is counted once as received, and a record's spans end as joined,
   * duplicate, or unjoined. The span counts are klat's spans; instrumentations' spans (section 10
   * of the latency model) are counted in {@link InstrumentedStats}, and their records in the counts
   * of records and breakdowns here.
   *
   * @param producerSpans klat's producer spans offered
   * @param consumerSpans klat's consumer spans offered
   * @param joined breakdowns computed
   * @param duplicates spans ignored because the same span (same record, same side and group) was
   *     already there
   * @param unjoinedProducerSpans producer spans no consumer group joined within the window
   * @param unjoinedConsumerSpans consumer spans whose producer span did not arrive within the
   *     window
   * @param traceMismatches consumer spans whose trace id differed from the producer span of the
   *     same record, so they were not joined
   * @param evicted records that left the table before their window ended because it was full (of
   *     records or of bytes)
   * @param droppedSpans spans of evicted records that had not joined, and consumer spans refused
   *     because their record had {@code maxGroupsPerRecord} groups: counted here, not as unjoined,
   *     because they did not get their whole window
   * @param invalid joined pairs whose instants could not form a breakdown
   * @param clampedInstants instants moved by {@link Breakdown#compute}
   * @param pendingRecords records waiting now
   * @param brokerDataWaits joined records whose breakdown waited for their leader's broker probe
   * @param brokerDataWaitsTimedOut of those, the ones computed without it after the longest wait
   * @param evictedForBytes of the evicted records, those that left because of the byte budget
   * @param pendingBytes the estimated bytes of the records waiting now
   * @param groupsRefused consumer spans refused because their record had {@code maxGroupsPerRecord}
   *     groups
   * @param implausibleClockBounds joined pairs whose clock bound contradicted the clock domains'
   *     own measurements by more than {@code clockMaxStepNanos}, and was not used
   * @param tail what became of tail spans (section 8 of the latency model)
   * @param otel what became of OpenTelemetry instrumentations' spans (section 10)
   */
  public record Stats(
      long producerSpans,
      long consumerSpans,
      long joined,
      long duplicates,
      long unjoinedProducerSpans,
      long unjoinedConsumerSpans,
      long traceMismatches,
      long evicted,
      long droppedSpans,
      long invalid,
      long clampedInstants,
      int pendingRecords,
      long brokerDataWaits,
      long brokerDataWaitsTimedOut,
      long evictedForBytes,
      long pendingBytes,
      long groupsRefused,
      long implausibleClockBounds,
      TailStats tail,
      InstrumentedStats otel,
      ShareStats share) {}

  /**
   * What became of share consumers' spans (section 11 of the latency model): each is one delivery,
   * counted in {@link Stats#consumerSpans()} too.
   *
   * @param deliveries share consumer spans offered
   * @param records breakdowns of share groups' records (their deliveries joined into one)
   * @param redeliveredRecords of those, the records delivered more than once
   * @param duplicates deliveries whose delivery count was already there for the record and group
   * @param refused deliveries refused beyond {@link SharePending#MAX_DELIVERIES} for one record and
   *     group, or beyond the record's groups
   * @param late deliveries that arrived after their record's counted delivery had joined
   * @param evicted deliveries held for records that left the table early (full, or over its bytes)
   *     before their counted delivery was chosen
   */
  public record ShareStats(
      long deliveries,
      long records,
      long redeliveredRecords,
      long duplicates,
      long refused,
      long late,
      long evicted) {}

  /**
   * What became of tail spans, counted apart from the sampled figures above (which count every span
   * offered, tail ones too, and every breakdown computed).
   *
   * @param producerSpans tail producer spans offered
   * @param consumerSpans tail consumer spans offered
   * @param joined breakdowns of a joined pair with at least one tail span
   * @param producerOnly producer-only breakdowns: a producer tail span no group joined
   * @param consumerOnly consumer-only breakdowns: a consumer tail span without its producer span
   * @param invalid one-sided breakdowns whose instants could not form one
   * @param evicted tail-only records that left before their window ended because the tail budget
   *     was full
   * @param droppedSpans the unjoined tail spans of those records
   * @param pendingRecords tail-only records waiting now
   * @param pendingBytes their estimated bytes
   */
  public record TailStats(
      long producerSpans,
      long consumerSpans,
      long joined,
      long producerOnly,
      long consumerOnly,
      long invalid,
      long evicted,
      long droppedSpans,
      int pendingRecords,
      long pendingBytes) {}

  private final Settings settings;
  private final LongSupplier clockNanos;
  private final BrokerInstants brokerInstants;
  private final SourcedSink sink;
  private final ClockOffsets offsets;
  private final JoinTable table;
  private final HostNames hostNames = new HostNames(MAX_HOST_NAMES);
  private final CollectorSyncs collectorSyncs;
  private final BrokerDataWaits<Joining> brokerDataWaits;
  private final PairBreakdowns pairs;
  private final OneSidedBreakdowns oneSided;
  private final InstrumentedJoin instrumented;
  private final InstrumentedBreakdowns instrumentedBreakdowns;
  private final ShareRecords shareRecordsOf;

  private long producerSpans;
  private long consumerSpans;
  private long joined;
  private long duplicates;
  private long traceMismatches;
  private long invalid;
  private long clampedInstants;
  private long groupsRefused;
  private long tailProducerSpans;
  private long tailConsumerSpans;
  private long tailJoined;
  private long producerOnly;
  private long consumerOnly;
  private long oneSidedInvalid;
  private long shareDeliveries;
  private long shareRecords;
  private long shareRedeliveredRecords;
  private long shareDuplicates;
  private long shareRefused;
  private long shareLate;

  /**
   * @param settings the window and limits
   * @param clockNanos a monotonic clock in nanoseconds (for example {@code System::nanoTime})
   * @param brokerInstants where {@code L} and {@code H} come from, tried in order of quality
   * @param sink receives every breakdown, under this object's lock: must be quick
   */
  public Correlator(
      Settings settings,
      LongSupplier clockNanos,
      BrokerInstants brokerInstants,
      Consumer<JoinedBreakdown> sink) {
    this((breakdown, source) -> sink.accept(breakdown), settings, clockNanos, brokerInstants);
  }

  /**
   * A correlator whose sink also learns, for each breakdown, the source of the span that completed
   * its join: the join role uses it to place the breakdown against its topic's offsets.
   */
  public static Correlator sourced(
      Settings settings, LongSupplier clockNanos, BrokerInstants brokerInstants, SourcedSink sink) {
    return new Correlator(sink, settings, clockNanos, brokerInstants);
  }

  private Correlator(
      SourcedSink sink, Settings settings, LongSupplier clockNanos, BrokerInstants brokerInstants) {
    this.settings = settings;
    this.clockNanos = clockNanos;
    this.brokerInstants = brokerInstants;
    this.sink = sink;
    this.table =
        new JoinTable(
            settings.windowNanos(),
            settings.maxPendingRecords(),
            settings.maxPendingBytes(),
            settings.maxPendingTailBytes());
    this.offsets = new ClockOffsets(settings.clockWindowNanos(), settings.maxClockPairs());
    this.collectorSyncs = new CollectorSyncs(MAX_HOST_NAMES, settings.clockWindowNanos());
    this.brokerDataWaits = new BrokerDataWaits<>(settings.maxPendingRecords());
    this.pairs =
        new PairBreakdowns(
            hostNames, offsets, collectorSyncs, brokerInstants, settings.clockMaxStepNanos());
    this.oneSided = new OneSidedBreakdowns(hostNames, offsets, brokerInstants);
    // Waiting producer spans of instrumentations: as many as records, a quarter of their bytes.
    this.instrumented =
        new InstrumentedJoin(
            new ProducerPlacements(
                settings.windowNanos(),
                settings.maxPendingRecords(),
                Math.max(1, settings.maxPendingBytes() / 4)));
    this.instrumentedBreakdowns =
        new InstrumentedBreakdowns(
            hostNames, offsets, collectorSyncs, brokerInstants, settings.clockMaxStepNanos());
    this.shareRecordsOf = new ShareRecords(hostNames, offsets);
  }

  /** Offers one producer span; joins it with every consumer group already waiting for it. */
  public void offerProducer(ProducerSpan span) {
    offerProducer(span, NO_SOURCE);
  }

  /**
   * Offers one producer span read from {@code source} (a non-negative position the caller defines,
   * handed back with every breakdown this span completes); joins it with every consumer group
   * already waiting for it.
   */
  public synchronized void offerProducer(ProducerSpan span, long source) {
    long now = clockNanos.getAsLong();
    expire(now);
    producerSpans++;
    if (span.tail()) {
      tailProducerSpans++;
    }
    producerArrived(span, source, now);
  }

  /**
   * Offers one record span of an OpenTelemetry instrumentation (section 10 of the latency model):
   * it joins like klat's spans of its side, or, a producer span without an offset, waits for a
   * consumer span to name it.
   */
  public void acceptOtel(OtelRecordSpan span) {
    acceptOtel(span, NO_SOURCE);
  }

  /**
   * Offers one record span of an OpenTelemetry instrumentation read from {@code source}, as {@link
   * #offerProducer(ProducerSpan, long)} does.
   */
  public synchronized void acceptOtel(OtelRecordSpan span, long source) {
    long now = clockNanos.getAsLong();
    expire(now);
    instrumented.accept(span, source, now, this::producerArrived, this::consumerArrived);
  }

  private void producerArrived(ProducerSpan span, long source, long now) {
    JoinTable.Entry entry = table.entryFor(span.key(), now, span.tail());
    if (entry.producer != null) {
      InstrumentedJoin.Side side =
          instrumented.side(entry.producer.instrumented(), span.instrumented(), false);
      if (side != InstrumentedJoin.Side.REPLACES) {
        duplicates += side == InstrumentedJoin.Side.DUPLICATE && !span.instrumented() ? 1 : 0;
        return;
      }
      // klat's span takes the instrumentation's place, for the groups that join from now on.
      table.added(entry, -JoinTable.producerBytes(entry.producer));
    }
    entry.producer = span;
    entry.producerSource = source;
    table.added(entry, JoinTable.producerBytes(span));
    if (entry.waiting == null) {
      return;
    }
    for (int i = 0; i < entry.waiting.size(); ) {
      ConsumerSpan consumer = entry.waiting.get(i);
      if (sameTrace(span, consumer)) {
        entry.removeWaiting(i);
        join(entry, span, consumer, now, source);
      } else {
        traceMismatches++;
        i++;
      }
    }
  }

  /** Offers one consumer span; joins it if its producer span is there, else it waits. */
  public void offerConsumer(ConsumerSpan span) {
    offerConsumer(span, NO_SOURCE);
  }

  /**
   * Offers one consumer span read from {@code source}, as {@link #offerProducer(ProducerSpan,
   * long)} does; joins it if its producer span is there, else it waits.
   */
  public synchronized void offerConsumer(ConsumerSpan span, long source) {
    long now = clockNanos.getAsLong();
    expire(now);
    consumerSpans++;
    if (span.tail()) {
      tailConsumerSpans++;
    }
    consumerArrived(span, source, now);
  }

  // Whether the record has its producer span once the consumer span is in.
  private boolean consumerArrived(ConsumerSpan span, long source, long now) {
    JoinTable.Entry entry = table.entryFor(span.key(), now, span.tail());
    if (span.shared() && !span.instrumented()) {
      return shareArrived(entry, span, source, now);
    }
    int waiting = entry.waitingIndex(span.group());
    int joinedAt = waiting >= 0 ? -1 : entry.joinedIndex(span.group());
    if (waiting >= 0 || joinedAt >= 0) {
      boolean thereInstrumented =
          waiting >= 0
              ? entry.waiting.get(waiting).instrumented()
              : entry.joinedInstrumented(joinedAt);
      InstrumentedJoin.Side side =
          instrumented.side(thereInstrumented, span.instrumented(), joinedAt >= 0);
      if (side != InstrumentedJoin.Side.REPLACES) {
        duplicates += side == InstrumentedJoin.Side.DUPLICATE && !span.instrumented() ? 1 : 0;
        return entry.producer != null;
      }
      // klat's span takes the waiting instrumentation's span's place.
      table.added(entry, -JoinTable.consumerBytes(entry.waiting.get(waiting)));
      entry.removeWaiting(waiting);
    } else if (entry.groups() >= settings.maxGroupsPerRecord()) {
      // Each group is looked for in the record's lists: a cap keeps that linear scan short.
      groupsRefused++;
      return entry.producer != null;
    }
    table.added(entry, JoinTable.consumerBytes(span));
    if (entry.producer != null && sameTrace(entry.producer, span)) {
      join(entry, entry.producer, span, now, source);
      return true;
    }
    if (entry.producer != null) {
      traceMismatches++;
    }
    entry.addWaiting(span, source);
    return entry.producer != null;
  }

  // Section 11: one delivery of a record to a share group gathers with the record's others until
  // the counted delivery is known.
  private boolean shareArrived(JoinTable.Entry entry, ConsumerSpan span, long source, long now) {
    shareDeliveries++;
    SharePending pending = entry.share(span.group());
    if (pending == null) {
      if (entry.hasGroup(span.group())) {
        // A consumer group of the same name read the record: one breakdown per group name.
        shareRefused++;
        return entry.producer != null;
      }
      if (entry.groups() >= settings.maxGroupsPerRecord()) {
        // Each group is looked for in the record's lists: a cap keeps that linear scan short.
        shareRefused++;
        groupsRefused++;
        return entry.producer != null;
      }
      pending = entry.addShare(span.group());
      table.added(entry, SharePending.PENDING_BYTES + JoinTable.chars(span.group()));
    } else if (pending.decided()) {
      // The counted delivery joined already: an accepted delivery with every earlier one seen.
      shareLate++;
      return entry.producer != null;
    }
    switch (pending.add(span, source)) {
      case DUPLICATE:
        shareDuplicates++;
        duplicates++;
        return entry.producer != null;
      case REFUSED:
        shareRefused++;
        return entry.producer != null;
      default:
        break;
    }
    table.added(entry, JoinTable.consumerBytes(span) + SharePending.DELIVERY_BYTES);
    if (pending.complete()) {
      decideShare(entry, pending, now);
    }
    return entry.producer != null;
  }

  // Chooses a share group's counted delivery and joins it, or leaves it waiting for the producer.
  private void decideShare(JoinTable.Entry entry, SharePending pending, long now) {
    ConsumerSpan counted = pending.decide();
    long source = pending.countedSource();
    if (entry.producer != null && sameTrace(entry.producer, counted)) {
      join(entry, entry.producer, counted, now, source);
      return;
    }
    if (entry.producer != null) {
      traceMismatches++;
    }
    entry.addWaiting(counted, source);
  }

  // At a record's window end: every share group still gathering takes what it has.
  private void endingShares(JoinTable.Entry entry, long now) {
    for (SharePending pending : entry.shares) {
      if (!pending.decided() && !pending.deliveries.isEmpty()) {
        decideShare(entry, pending, now);
      }
    }
  }

  /**
   * Offers an agent's measurement of its clock against the collector's, from the resource of its
   * export ({@code klat.clock.collector_offset_ns} and {@code
   * klat.clock.collector_uncertainty_ns}): {@code clock(collector) - clock(agent)} lies within
   * {@code uncertaintyNanos} of {@code offsetNanos}. Kept per instance for the clock window; a pair
   * of instances that both have one gets two-sided bounds at every join, so that its offset is
   * bounded even when records flow one way only.
   *
   * @param instanceId the agent's instance id, naming its clock domain; 0 is ignored
   * @param offsetNanos {@code clock(collector) - clock(agent)}
   * @param uncertaintyNanos the half-width of the interval, at least 0
   */
  public synchronized void offerClockSync(
      long instanceId, long offsetNanos, long uncertaintyNanos) {
    String host = hostNames.name(instanceId);
    if (host != null) {
      collectorSyncs.keep(host, offsetNanos, uncertaintyNanos, clockNanos.getAsLong());
    }
  }

  /**
   * Offers a broker probe's measurement of its broker's clock against the collector's, as {@link
   * #offerClockSync} does for an agent: kept for the clock window, it bounds the broker's clock
   * against a producer's from both sides at every join whose producer has one too.
   *
   * @param brokerId the broker's node id, naming its clock domain {@code broker-<id>}
   * @param offsetNanos {@code clock(collector) - clock(broker)}
   * @param uncertaintyNanos the half-width of the interval, at least 0
   */
  public synchronized void offerBrokerClockSync(
      int brokerId, long offsetNanos, long uncertaintyNanos) {
    if (brokerId >= 0) {
      collectorSyncs.keep(
          "broker-" + brokerId, offsetNanos, uncertaintyNanos, clockNanos.getAsLong());
    }
  }

  /** Ends the window of every record whose window is over; the step a scheduler drives. */
  public synchronized void expire() {
    long now = clockNanos.getAsLong();
    expire(now);
    releaseBrokerDataWaits(now);
  }

  /**
   * Computes the breakdowns that waited for broker data which has now arrived, or waited as long as
   * they may; the step the broker data receiver drives after each delivery (and {@link #expire()}
   * every second).
   */
  public synchronized void brokerDataArrived() {
    releaseBrokerDataWaits(clockNanos.getAsLong());
  }

  private void releaseBrokerDataWaits(long now) {
    brokerDataWaits.release(
        now,
        (j, at) -> brokerInstants.awaitingData(j.producer, j.consumer, at),
        j -> breakDown(j.entry, j.producer, j.consumer, now, j.source));
  }

  /**
   * The least source whose join waits for broker data among the sources {@code select} keeps (it
   * maps a source to itself to keep it, or to a negative value to skip it), or {@code
   * Long.MAX_VALUE} when none waits: a breakdown not computed yet, so the join role must not mark
   * its source as done.
   */
  public synchronized long oldestWaitingSource(LongUnaryOperator select) {
    long[] oldest = {Long.MAX_VALUE};
    brokerDataWaits.forEach(
        j -> {
          long kept = j.source == NO_SOURCE ? -1 : select.applyAsLong(j.source);
          if (kept >= 0 && kept < oldest[0]) {
            oldest[0] = kept;
          }
        });
    return oldest[0];
  }

  /** Returns the counts since start. */
  public synchronized Stats stats() {
    return new Stats(
        producerSpans,
        consumerSpans,
        joined,
        duplicates,
        table.unjoinedProducerSpans(),
        table.unjoinedConsumerSpans(),
        traceMismatches,
        table.evicted(),
        table.droppedSpans() + groupsRefused,
        invalid,
        clampedInstants,
        table.size(),
        brokerDataWaits.waits(),
        brokerDataWaits.timedOut(),
        table.evictedForBytes(),
        table.estimatedBytes(),
        groupsRefused,
        pairs.implausibleClockBounds(),
        new TailStats(
            tailProducerSpans,
            tailConsumerSpans,
            tailJoined,
            producerOnly,
            consumerOnly,
            oneSidedInvalid,
            table.tailEvicted(),
            table.tailDroppedSpans(),
            table.tailSize(),
            table.tailEstimatedBytes()),
        instrumented.stats(instrumentedBreakdowns, table.instrumentedDroppedSpans()),
        new ShareStats(
            shareDeliveries,
            shareRecords,
            shareRedeliveredRecords,
            shareDuplicates,
            shareRefused,
            shareLate,
            table.shareDeliveriesEvicted()));
  }

  /**
   * Returns whether the table is full of young records: full, with the oldest record waiting for
   * less than half the window. A full table of older records is normal at a steady rate (they are
   * evicted early, which mostly costs other groups' late joins); young ones being evicted means the
   * rate exceeds what the table holds, and senders should slow down.
   */
  public synchronized boolean saturated() {
    return table.saturated(clockNanos.getAsLong());
  }

  /** Returns how many records wait for a partner now. */
  public synchronized int pendingRecords() {
    return table.size();
  }

  /** Returns the current estimate of every pair of clock domains seen within the clock window. */
  public synchronized List<ClockOffset> clockOffsets() {
    return offsets.all(clockNanos.getAsLong());
  }

  private void expire(long now) {
    table.expire(now, entry -> endingShares(entry, now), entry -> endedWithTail(entry, now));
    instrumented.expire(now);
  }

  // Section 8: the tail spans of a record whose window ended without a partner; section 10: the
  // instrumentations' spans likewise.
  private void endedWithTail(JoinTable.Entry entry, long now) {
    if (entry.producerUnjoined() && entry.producer.tail()) {
      emitOneSided(oneSided.producerOnly(entry.producer, now), entry.producerSource, true);
    } else if (entry.producerUnjoined() && entry.producer.instrumented()) {
      emitInstrumented(
          instrumentedBreakdowns.producerOnly(entry.producer, now), entry.producerSource, true);
    }
    if (entry.waiting != null) {
      for (int i = 0; i < entry.waiting.size(); i++) {
        ConsumerSpan consumer = entry.waiting.get(i);
        if (consumer.tail()) {
          emitOneSided(oneSided.consumerOnly(consumer, now), entry.waitingSource(i), false);
        } else if (consumer.instrumented()) {
          emitInstrumented(
              instrumentedBreakdowns.consumerOnly(consumer, now), entry.waitingSource(i), false);
        }
      }
    }
  }

  private void emitInstrumented(JoinedBreakdown result, long source, boolean producerSide) {
    if (result == null) {
      return; // counted by InstrumentedBreakdowns: no probe data, or invalid
    }
    instrumented.aloneAtWindowEnd(producerSide);
    clampedInstants += result.breakdown().clampCount();
    sink.accept(result, source);
  }

  private void emitOneSided(JoinedBreakdown result, long source, boolean producerSide) {
    if (result == null) {
      oneSidedInvalid++;
      return;
    }
    if (producerSide) {
      producerOnly++;
    } else {
      consumerOnly++;
    }
    clampedInstants += result.breakdown().clampCount();
    sink.accept(result, source);
  }

  private static boolean sameTrace(ProducerSpan producer, ConsumerSpan consumer) {
    boolean producerHas = producer.traceIdHigh() != 0 || producer.traceIdLow() != 0;
    boolean consumerHas = consumer.traceIdHigh() != 0 || consumer.traceIdLow() != 0;
    // The key identifies the record; the trace id, when both sides carry one, guards against an
    // offset reused after a topic was deleted and created again inside the window. An id derived
    // from the key itself (a tail span's, section 8) guards nothing and meets any other. Nor does
    // an instrumentation's (section 10): its consumer span may be in its own trace, linking the
    // producer's, and klat's agent and an instrumentation in one client each inject a context.
    return producer.instrumented()
        || consumer.instrumented()
        || !producerHas
        || !consumerHas
        || TailTraceIds.isDerived(producer.traceIdHigh())
        || TailTraceIds.isDerived(consumer.traceIdHigh())
        || (producer.traceIdHigh() == consumer.traceIdHigh()
            && producer.traceIdLow() == consumer.traceIdLow());
  }

  private void join(
      JoinTable.Entry entry, ProducerSpan producer, ConsumerSpan consumer, long now, long source) {
    entry.joined(consumer.group(), consumer.instrumented());
    if (brokerDataWaits.hold(
        new Joining(entry, producer, consumer, source),
        brokerInstants.awaitingData(producer, consumer, now),
        now)) {
      return;
    }
    breakDown(entry, producer, consumer, now, source);
  }

  private void breakDown(
      JoinTable.Entry entry, ProducerSpan producer, ConsumerSpan consumer, long now, long source) {
    boolean otel = producer.instrumented() || consumer.instrumented();
    JoinedBreakdown result =
        otel
            ? instrumentedBreakdowns.pair(producer, consumer, now)
            : pairs.compute(entry, producer, consumer, now);
    if (result == null) {
      invalid++;
      return;
    }
    joined++;
    if (otel) {
      instrumented.joined();
    }
    if (consumer.shared() && !otel) {
      SharePending pending = entry.share(consumer.group());
      if (pending != null) {
        result = shareRecordsOf.withDeliveries(pending, consumer, producer, result, now);
        shareRecords++;
        if (result.share().deliveryCount() > 1) {
          shareRedeliveredRecords++;
        }
      }
    }
    if (result.capture() == Capture.TAIL) {
      tailJoined++;
    }
    clampedInstants += result.breakdown().clampCount();
    sink.accept(result, source);
  }

  // A joined record between its join and its breakdown.
  private record Joining(
      JoinTable.Entry entry, ProducerSpan producer, ConsumerSpan consumer, long source) {}
}
