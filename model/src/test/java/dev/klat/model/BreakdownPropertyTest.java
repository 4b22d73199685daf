package dev.klat.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Seeded random checks of {@link Breakdown#compute}. Every case draws from its own {@link Random}
 * seeded from the test's fixed seed, and a failure prints that case seed, so one case can be
 * replayed alone with {@link #replay(long, Mode)}.
 */
// Long arithmetic on instants drawn from java.util.Random, whose sequence the Java spec fixes:
// CI runs it on its first JDK only (JdkIndependent). BreakdownTest's fixed cases run on both.
@Tag("jdk-independent")
class BreakdownPropertyTest {

  private static final int CASES = 250_000;
  private static final EstimationMethod[] METHODS = EstimationMethod.values();

  enum Mode {
    /** Realistic epoch nanoseconds, already in order, both orders of F and H. */
    ORDERED_REALISTIC,
    /** In order, with gaps up to 2^59 and the whole chain near Long.MIN_VALUE or MAX_VALUE. */
    ORDERED_EXTREME,
    /** In order, then one to three instants moved by a random amount in either direction. */
    PERTURBED,
    /** Every instant independent, anywhere in a window of up to Long.MAX_VALUE. */
    GARBAGE
  }

  /** Which instants a case keeps: a record seen by both sides, or a tail record seen by one. */
  enum Shape {
    BOTH,
    /** A producer-only tail record: {@code S, D}, maybe {@code A, L, H}. */
    PRODUCER_ONLY,
    /** A consumer-only tail record on a CreateTime topic: {@code S} from the timestamp, no D/A. */
    CONSUMER_CREATE_TIME,
    /** A consumer-only tail record on a LogAppendTime topic: no {@code S, D, A}. */
    CONSUMER_LOG_APPEND_TIME,
    /**
     * Both sides seen through OpenTelemetry instrumentations (section 10): {@code S, P}, maybe
     * {@code A}, {@code L, H} from the probe or (without it) neither.
     */
    OPENTELEMETRY_BOTH,
    /** klat's producer agent and an instrumented consumer: no {@code F, R}. */
    KLAT_PRODUCER_OPENTELEMETRY_CONSUMER
  }

  private static final int PARTIAL_CASES = 60_000;

  @Test
  void partialInstantsOfTailRecordsKeepTheIdentityInEveryMode() {
    long testSeed = 0x7a11L;
    for (Mode mode : Mode.values()) {
      for (Shape shape : Shape.values()) {
        if (shape == Shape.BOTH) {
          continue;
        }
        Random seeds = new Random(testSeed++);
        int clamped = 0;
        for (int i = 0; i < PARTIAL_CASES; i++) {
          Breakdown b = replay(seeds.nextLong(), mode, shape);
          if (b.clampCount() > 0) {
            clamped++;
          }
        }
        if (mode == Mode.PERTURBED || mode == Mode.GARBAGE) {
          assertThat(clamped).as(mode + " " + shape).isGreaterThan(PARTIAL_CASES / 20);
        }
      }
    }
  }

  @Test
  void orderedRealisticInstantsAreNeverClampedAndSumExactly() {
    run(0x6b6c6174L, Mode.ORDERED_REALISTIC);
  }

  @Test
  void orderedInstantsNearTheEndsOfTheLongRangeAreNeverClampedAndDoNotOverflow() {
    run(0x0ddba11L, Mode.ORDERED_EXTREME);
  }

  @Test
  void perturbedInstantsAreClampedIntoOrderAndSegmentsStayNonNegative() {
    run(0x5eed5eedL, Mode.PERTURBED);
  }

  @Test
  void garbageInstantsAnywhereInTheSupportedRangeNeverBreakTheIdentity() {
    run(0xbadc0ffeeL, Mode.GARBAGE);
  }

  private static void run(long testSeed, Mode mode) {
    Random seeds = new Random(testSeed);
    int bothOrders = 0;
    int clamped = 0;
    for (int i = 0; i < CASES; i++) {
      long caseSeed = seeds.nextLong();
      Breakdown b = replay(caseSeed, mode);
      if (b.instants().nanos(TimePoint.FETCH_REQUEST) < b.instants().nanos(TimePoint.COMMIT)) {
        bothOrders |= 1;
      } else if (b.instants().nanos(TimePoint.FETCH_REQUEST)
          > b.instants().nanos(TimePoint.COMMIT)) {
        bothOrders |= 2;
      }
      if (b.clampCount() > 0) {
        clamped++;
      }
    }
    // The generator must reach both orders of F and H, and clamp exactly when it should.
    assertThat(bothOrders).as("F < H and F > H both generated").isEqualTo(3);
    if (mode == Mode.ORDERED_REALISTIC || mode == Mode.ORDERED_EXTREME) {
      assertThat(clamped).isZero();
    } else {
      assertThat(clamped).isGreaterThan(CASES / 10);
    }
  }

  /** Generates and checks one case; call with a seed from a failure message to replay it. */
  static Breakdown replay(long caseSeed, Mode mode) {
    return replay(caseSeed, mode, Shape.BOTH);
  }

  /** Generates and checks one case of a shape; call with a seed from a failure message. */
  static Breakdown replay(long caseSeed, Mode mode, Shape shape) {
    Random random = new Random(caseSeed);
    Instants instants;
    try {
      instants = restrict(generate(random, mode).build(), shape, random);
    } catch (RuntimeException e) {
      throw new AssertionError(
          "case seed " + caseSeed + "L (" + mode + ", " + shape + "): build failed", e);
    }
    Breakdown b;
    try {
      b = Breakdown.compute(instants);
    } catch (RuntimeException e) {
      throw new AssertionError(
          "case seed " + caseSeed + "L (" + mode + "): compute threw for " + instants, e);
    }
    BreakdownInvariants.check(b, () -> "case seed " + caseSeed + "L (" + mode + ", " + shape + ")");
    if (mode == Mode.ORDERED_REALISTIC || mode == Mode.ORDERED_EXTREME) {
      if (b.clampCount() != 0 || !b.instants().equals(b.original())) {
        fail("case seed " + caseSeed + "L (" + mode + "): ordered input was changed\n" + b);
      }
    }
    return b;
  }

  // Keeps the instants a shape has, with their values and methods; the create timestamp's S gets
  // its method.
  private static Instants restrict(Instants full, Shape shape, Random random) {
    if (shape == Shape.BOTH) {
      return full;
    }
    Instants.Builder builder = Instants.builder();
    for (TimePoint point : TimePoint.values()) {
      if (!full.has(point) || !kept(point, shape)) {
        continue;
      }
      builder.set(point, full.nanos(point), full.method(point));
    }
    if (shape == Shape.CONSUMER_CREATE_TIME && random.nextInt(4) != 0) {
      builder.method(TimePoint.SEND, EstimationMethod.CREATE_TIMESTAMP);
    }
    if (shape == Shape.OPENTELEMETRY_BOTH || shape == Shape.KLAT_PRODUCER_OPENTELEMETRY_CONSUMER) {
      builder.method(TimePoint.POLL, EstimationMethod.OPENTELEMETRY_SPAN);
    }
    if (shape == Shape.OPENTELEMETRY_BOTH) {
      builder.method(TimePoint.SEND, EstimationMethod.OPENTELEMETRY_SPAN);
      if (random.nextInt(3) == 0) {
        // No probe: neither L nor H.
        Instants kept = builder.build();
        Instants.Builder without = Instants.builder();
        for (TimePoint point : TimePoint.values()) {
          if (kept.has(point) && point != TimePoint.COMMIT && point != TimePoint.APPEND) {
            without.set(point, kept.nanos(point), kept.method(point));
          }
        }
        return without.build();
      }
    }
    if (shape == Shape.PRODUCER_ONLY && full.has(TimePoint.COMMIT) && random.nextInt(3) == 0) {
      // H unknown: a producer without acks=all and no broker data.
      Instants withCommit = builder.build();
      Instants.Builder without = Instants.builder();
      for (TimePoint point : TimePoint.values()) {
        if (withCommit.has(point) && point != TimePoint.COMMIT) {
          without.set(point, withCommit.nanos(point), withCommit.method(point));
        }
      }
      return without.build();
    }
    return builder.build();
  }

  private static boolean kept(TimePoint point, Shape shape) {
    switch (shape) {
      case PRODUCER_ONLY:
        return point.observer() != TimePoint.Observer.CONSUMER;
      case CONSUMER_CREATE_TIME:
        return point != TimePoint.DRAIN && point != TimePoint.ACK;
      case CONSUMER_LOG_APPEND_TIME:
        return point.observer() != TimePoint.Observer.PRODUCER;
      case OPENTELEMETRY_BOTH:
        return point != TimePoint.DRAIN
            && point != TimePoint.FETCH_REQUEST
            && point != TimePoint.FETCH_RESPONSE;
      case KLAT_PRODUCER_OPENTELEMETRY_CONSUMER:
        return point != TimePoint.FETCH_REQUEST && point != TimePoint.FETCH_RESPONSE;
      default:
        return true;
    }
  }

  private static Instants.Builder generate(Random random, Mode mode) {
    switch (mode) {
      case ORDERED_REALISTIC:
        return ordered(random, 1_600_000_000_000_000_000L + uniform(random, 1L << 58), 1L << 36);
      case ORDERED_EXTREME:
        {
          long maxGap = 1L << 59;
          // P lies at most 5 gaps above S, and F at most one gap and 1 ns below it.
          long lowest = Long.MIN_VALUE + maxGap + 1;
          long highest = Long.MAX_VALUE - 5 * maxGap;
          long send;
          switch (random.nextInt(3)) {
            case 0:
              send = lowest;
              break;
            case 1:
              send = highest;
              break;
            default:
              send = lowest + uniform(random, highest - lowest);
          }
          return ordered(random, send, maxGap);
        }
      case PERTURBED:
        {
          long send = 1_700_000_000_000_000_000L;
          Instants.Builder builder = ordered(random, send, 1_000_000L);
          Instants base = builder.build();
          int moves = 1 + random.nextInt(3);
          for (int m = 0; m < moves; m++) {
            TimePoint point = TimePoint.values()[random.nextInt(TimePoint.values().length)];
            if (!base.has(point)) {
              continue;
            }
            long shift = uniform(random, 8_000_000L) - 4_000_000L;
            builder.set(point, base.nanos(point) + shift);
          }
          return builder;
        }
      case GARBAGE:
        return garbage(random);
      default:
        throw new AssertionError(mode);
    }
  }

  // S <= D <= L <= H <= R <= P, D <= A, L <= A, F <= R; F before or after H.
  private static Instants.Builder ordered(Random random, long send, long maxGap) {
    Instants.Builder builder = Instants.builder();
    boolean appendKnown = random.nextInt(4) != 0;
    boolean ackKnown = random.nextInt(4) != 0;
    long s = send;
    long d = s + gap(random, maxGap);
    long l = d + gap(random, maxGap);
    long h = l + gap(random, maxGap);
    long r = h + gap(random, maxGap);
    long p = r + gap(random, maxGap);
    long a = (appendKnown ? l : d) + gap(random, maxGap);
    long f;
    switch (random.nextInt(3)) {
      case 0: // waiting in long-poll: F before H
        f = h - gap(random, maxGap) - 1;
        break;
      case 1: // lagging: F after H
        f = h + 1 + uniform(random, r - h);
        break;
      default:
        f = h;
    }
    f = Math.min(f, r);
    builder.send(s).drain(d).commit(h, method(random)).fetchRequest(f).fetchResponse(r).poll(p);
    if (appendKnown) {
      builder.append(l, method(random));
    }
    if (ackKnown) {
      builder.ack(a);
    }
    randomizeClientMethods(random, builder);
    return builder;
  }

  private static Instants.Builder garbage(Random random) {
    long width;
    switch (random.nextInt(4)) {
      case 0:
        width = 1_000_000L;
        break;
      case 1:
        width = 1_000_000_000_000L;
        break;
      case 2:
        width = 1L << 62;
        break;
      default:
        width = Long.MAX_VALUE;
    }
    long low;
    switch (random.nextInt(4)) {
      case 0:
        low = Long.MIN_VALUE;
        break;
      case 1:
        low = Long.MAX_VALUE - width;
        break;
      default:
        low = random.nextLong();
        if (low > Long.MAX_VALUE - width) {
          low = low - width - 1;
        }
    }
    Instants.Builder builder = Instants.builder();
    long[] values = new long[TimePoint.values().length];
    for (TimePoint point : TimePoint.values()) {
      int i = point.ordinal();
      // Ties matter (several instants on one bound), so reuse an earlier value now and then.
      values[i] =
          i > 0 && random.nextInt(5) == 0
              ? values[random.nextInt(i)]
              : random.nextInt(10) == 0
                  ? (random.nextBoolean() ? low : low + width)
                  : low + uniform(random, width);
      if ((point == TimePoint.ACK || point == TimePoint.APPEND) && random.nextInt(4) == 0) {
        continue;
      }
      builder.set(point, values[i], method(random));
    }
    return builder;
  }

  private static void randomizeClientMethods(Random random, Instants.Builder builder) {
    if (random.nextInt(10) == 0) {
      TimePoint point = TimePoint.values()[random.nextInt(TimePoint.values().length)];
      builder.method(point, method(random));
    }
  }

  private static EstimationMethod method(Random random) {
    return METHODS[random.nextInt(METHODS.length)];
  }

  // Mostly small gaps, sometimes zero, sometimes up to maxGap.
  private static long gap(Random random, long maxGap) {
    switch (random.nextInt(4)) {
      case 0:
        return 0;
      case 1:
        return uniform(random, Math.min(maxGap, 1_000_000L));
      default:
        return uniform(random, maxGap);
    }
  }

  // Uniform in [0, bound], for any bound >= 0 up to Long.MAX_VALUE.
  private static long uniform(Random random, long bound) {
    long value = random.nextLong() >>> 1;
    return bound == Long.MAX_VALUE ? value : value % (bound + 1);
  }
}
